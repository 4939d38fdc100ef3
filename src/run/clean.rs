//! What verdict owns on an engine, found by label, and its removal (`verdict clean`).
//!
//! Containers (and, on a swarm manager, the Swarm backend's services and their networks) are
//! found by [`OWNER_LABEL`] (or one run's [`RUN_LABEL`]). A run that is still
//! going on this machine (its folder's lock is held) is left alone and listed as such. Images
//! are only touched when asked for: they are a cache shared by every run, rebuilt when needed,
//! and an image a container still uses is kept.

use std::collections::HashMap;

use bollard::query_parameters::{ListImagesOptionsBuilder, RemoveImageOptionsBuilder};

use super::session::lock_holder;
use crate::engine::{Engine, EngineError, OwnedContainer, RunScope, OWNER_LABEL, RUN_LABEL, SHORT_CALL};

/// Everything verdict owns on the engine that a clean would remove, and what it keeps.
#[derive(Debug, Default)]
pub struct Inventory {
    pub containers: Vec<OwnedContainer>,
    /// Containers of runs still going on this machine: `(container, who holds the run)`.
    pub live: Vec<(OwnedContainer, String)>,
    /// `(id, tags)` of verdict's images, when images were asked for.
    pub images: Vec<(String, Vec<String>)>,
    /// `(id, name)` of the Swarm services, when the engine manages a swarm.
    pub services: Vec<(String, String)>,
    /// The label filter everything was found by.
    filter: Vec<String>,
}

/// What a clean did.
#[derive(Debug, Default)]
pub struct Removed {
    pub containers: usize,
    pub services: usize,
    pub images: usize,
    /// Things that could not be removed, with the reason.
    pub failed: Vec<String>,
}

/// Finds what verdict owns: one run's containers (`scope`), or all of them.
pub async fn inventory(engine: &Engine, scope: Option<&RunScope>, images: bool) -> Result<Inventory, EngineError> {
    let filter = match scope {
        Some(scope) => scope.filter(),
        None => vec![OWNER_LABEL.to_string()],
    };
    let mut found = Inventory { filter: filter.clone(), ..Default::default() };
    for container in engine.containers(&filter).await? {
        match container.run_folder.as_deref().and_then(|f| lock_holder(std::path::Path::new(f))) {
            Some(holder) => found.live.push((container, holder)),
            None => found.containers.push(container),
        }
    }
    let manager = engine.call("read the engine's info", SHORT_CALL, engine.docker().info()).await?;
    if manager.swarm.and_then(|s| s.control_available) == Some(true) {
        let filters = HashMap::from([("label".to_string(), filter.clone())]);
        let options = bollard::query_parameters::ListServicesOptionsBuilder::default().filters(&filters).build();
        let listed = engine.call("list services", SHORT_CALL, engine.docker().list_services(Some(options))).await?;
        found.services = listed
            .into_iter()
            .filter_map(|s| Some((s.id?, s.spec.and_then(|spec| spec.name).unwrap_or_default())))
            .collect();
    }
    if images {
        let filter = match scope {
            Some(scope) => format!("{RUN_LABEL}={}", scope.key()),
            None => OWNER_LABEL.to_string(),
        };
        let filters = HashMap::from([("label".to_string(), vec![filter])]);
        let options = ListImagesOptionsBuilder::default().filters(&filters).build();
        let listed = engine.call("list images", SHORT_CALL, engine.docker().list_images(Some(options))).await?;
        found.images = listed.into_iter().map(|i| (i.id, i.repo_tags)).collect();
        found.images.sort_by(|a, b| a.1.cmp(&b.1));
    }
    Ok(found)
}

/// Removes the inventory's containers, then its images (never the live runs').
pub async fn remove(engine: &Engine, inventory: &Inventory) -> Removed {
    let mut removed = Removed::default();
    for (id, name) in &inventory.services {
        match engine.call("remove a service", SHORT_CALL, engine.docker().delete_service(id)).await {
            Ok(()) => removed.services += 1,
            Err(e) => removed.failed.push(format!("service {name}: {e}")),
        }
    }
    if !inventory.services.is_empty() {
        let _ = super::swarm::remove_networks(engine, &inventory.filter).await;
    }
    for container in &inventory.containers {
        match engine.remove_container(&container.id).await {
            Ok(()) => removed.containers += 1,
            Err(e) => removed.failed.push(format!("container {}: {e}", container.id)),
        }
    }
    for (id, tags) in &inventory.images {
        // Each tag in turn; the last one removes the image. An untagged image goes by its id.
        let names = if tags.is_empty() { std::slice::from_ref(id) } else { tags.as_slice() };
        let mut ok = true;
        for name in names {
            let options = RemoveImageOptionsBuilder::default().build();
            let request = engine.docker().remove_image(name, Some(options), None);
            if let Err(e) = engine.call("remove an image", SHORT_CALL, request).await {
                removed.failed.push(format!("image {name}: {e}"));
                ok = false;
                break;
            }
        }
        if ok {
            removed.images += 1;
        }
    }
    removed
}
