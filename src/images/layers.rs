//! An image's layers and their sizes, read through the engine, so that the bytes of many images
//! count each shared layer once, as `docker system df` does (86 instance images on one 672 MB
//! base are not 86 × 672 MB).
//!
//! A layer is named by its chain id (the OCI rule: the first layer's diff id, then
//! `sha256(parent_chain + " " + diff_id)`), so the same diff on two different parents stays two
//! layers, as in the engine's layer store. Sizes come from the image's history: the engine marks
//! a history entry that made no layer as empty and gives it size 0, so the entries with a
//! non-zero size are the layers in order. When their count does not match the layer count (a
//! layer whose diff is empty but not marked so), the image is kept as one unit of its whole
//! size under its top chain id: shared layers may then be counted again, never left out.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One layer of an image: its chain id and its own size in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerSize {
    pub chain_id: String,
    pub bytes: u64,
}

/// Chain ids of a list of diff ids (oldest first).
pub fn chain_ids(diff_ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(diff_ids.len());
    for diff in diff_ids {
        let chain = match out.last() {
            None => diff.clone(),
            Some(parent) => format!("sha256:{}", hex::encode(Sha256::digest(format!("{parent} {diff}").as_bytes()))),
        };
        out.push(chain);
    }
    out
}

/// Pairs the layers (diff ids, oldest first) with the sizes of the history entries (oldest
/// first); `total` is the image's size, used when they cannot be paired (see the module doc).
pub fn align(diff_ids: &[String], history_sizes: &[i64], total: u64) -> Vec<LayerSize> {
    let chains = chain_ids(diff_ids);
    let sizes: Vec<u64> = history_sizes.iter().filter(|&&s| s > 0).map(|&s| s as u64).collect();
    if sizes.len() == chains.len() {
        return chains.into_iter().zip(sizes).map(|(chain_id, bytes)| LayerSize { chain_id, bytes }).collect();
    }
    match chains.last() {
        Some(top) => vec![LayerSize { chain_id: format!("{top}+whole"), bytes: total }],
        None => Vec::new(),
    }
}

/// The layers of an image from its inspect answer and its history (newest entry first, as
/// the engine lists it).
pub fn layers_of(
    info: &bollard::models::ImageInspect,
    history: &[bollard::models::ImageHistoryResponseItem],
) -> Vec<LayerSize> {
    let diff_ids: Vec<String> = info.root_fs.as_ref().and_then(|r| r.layers.clone()).unwrap_or_default();
    let total = info.size.unwrap_or(0).max(0) as u64;
    let sizes: Vec<i64> = history.iter().rev().map(|h| h.size).collect();
    align(&diff_ids, &sizes, total)
}

/// Bytes of a set of images, each layer counted once.
pub fn unique_bytes<'a>(images: impl IntoIterator<Item = &'a [LayerSize]>) -> u64 {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut total = 0;
    for layers in images {
        for layer in layers {
            if seen.insert(layer.chain_id.as_str()) {
                total += layer.bytes;
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| format!("sha256:{n}")).collect()
    }

    #[test]
    fn chain_ids_follow_the_oci_rule() {
        let chains = chain_ids(&ids(&["aa", "bb"]));
        assert_eq!(chains[0], "sha256:aa");
        let expected = hex::encode(Sha256::digest(b"sha256:aa sha256:bb"));
        assert_eq!(chains[1], format!("sha256:{expected}"));
        // The same diff on another parent is another layer.
        assert_ne!(chain_ids(&ids(&["cc", "bb"]))[1], chains[1]);
    }

    #[test]
    fn empty_history_entries_are_not_layers() {
        // Oldest first: the OS layer, an ENV (empty), a RUN, a LABEL (empty), a COPY.
        let layers = align(&ids(&["os", "run", "copy"]), &[199_000_000, 0, 473_000_000, 0, 3_010], 672_003_010);
        let bytes: Vec<u64> = layers.iter().map(|l| l.bytes).collect();
        assert_eq!(bytes, [199_000_000, 473_000_000, 3_010]);
    }

    #[test]
    fn a_shared_base_counts_once() {
        // One 672 MB base (two layers) under 86 instance images of 141 kB each, as OmniGIRL's dayjs.
        let base = [199_000_000i64, 0, 473_000_000];
        let images: Vec<Vec<LayerSize>> = (0..86)
            .map(|k| {
                let diff = ids(&["os", "node", &format!("repo{k}")]);
                let sizes = [&base[..], &[141_000]].concat();
                align(&diff, &sizes, 672_141_000)
            })
            .collect();
        let naive: u64 = 86 * 672_141_000;
        let unique = unique_bytes(images.iter().map(Vec::as_slice));
        assert_eq!(unique, 672_000_000 + 86 * 141_000);
        assert!(unique * 50 < naive, "{unique} vs {naive}");
    }

    #[test]
    fn unpaired_history_keeps_the_image_whole() {
        let layers = align(&ids(&["a", "b"]), &[10, 0], 10);
        assert_eq!(layers.len(), 1);
        assert_eq!(layers[0].bytes, 10);
        assert!(align(&[], &[], 0).is_empty());
    }
}
