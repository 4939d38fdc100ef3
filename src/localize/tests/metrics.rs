//! Every metric on a small set, with the expected values worked out by hand.

use crate::localize::{LevelAggregate, LevelScores};

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| i.to_string()).collect()
}

fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
}

#[test]
fn each_metric_on_a_small_set_matches_the_hand_computation() {
    // A: gold {a, b}, predicted [c, a, d, b, e, f].
    //   correct 2; precision 2/6; recall 2/2 = 1; F1 = 2·(1/3)·1 / (1/3 + 1) = 0.5.
    //   Acc@1: [c] lacks a, b → 0; Acc@5: [c a d b e] has both → 1; Acc@10 → 1.
    //   Hit@1 0, Hit@5 1, Hit@10 1. Recall@1 0, Recall@5 1, Recall@10 1.
    //   First gold at rank 2 → reciprocal rank 0.5.
    let a = LevelScores::compute(&s(&["a", "b"]), &s(&["c", "a", "d", "b", "e", "f"]));
    // B: gold {x}, predicted [x, x, y] → duplicates dropped → [x, y].
    //   precision 1/2; recall 1; F1 = 2·0.5·1 / 1.5 = 2/3. Acc, Hit, Recall@K all 1; RR 1.
    let b = LevelScores::compute(&s(&["x"]), &s(&["x", "x", "y"]));
    // C: gold {p, q, r}, nothing predicted (a missing candidate): every metric 0.
    let c = LevelScores::compute(&s(&["p", "q", "r"]), &[]);
    // D: gold {m1..m6}, predicted [m1 m2 m3 m4 m5 z m6].
    //   precision 6/7; recall 1; F1 = 2·(6/7) / (6/7 + 1) = 12/13.
    //   Acc@1 0 (six gold); Acc@5 0 (m6 is 7th); Acc@10 1.
    //   Hit@1 1. Recall@1 1/6, Recall@5 5/6, Recall@10 1. RR 1.
    let d =
        LevelScores::compute(&s(&["m1", "m2", "m3", "m4", "m5", "m6"]), &s(&["m1", "m2", "m3", "m4", "m5", "z", "m6"]));

    let expect = [
        // (scores, P, R, F1, Acc@1,5,10, Hit@1,5,10, Recall@1,5,10, RR)
        (&a, 2.0 / 6.0, 1.0, 0.5, [0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0], 0.5),
        (&b, 0.5, 1.0, 2.0 / 3.0, [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], 1.0),
        (&c, 0.0, 0.0, 0.0, [0.0; 3], [0.0; 3], [0.0; 3], 0.0),
        (&d, 6.0 / 7.0, 1.0, 12.0 / 13.0, [0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [1.0 / 6.0, 5.0 / 6.0, 1.0], 1.0),
    ];
    for (i, (got, p, r, f1, acc, hit, rec, rr)) in expect.iter().enumerate() {
        let what = |m: &str| format!("instance {i}: {m}");
        close(got.precision, *p, &what("precision"));
        close(got.recall, *r, &what("recall"));
        close(got.f1, *f1, &what("f1"));
        close(got.acc_at_1, acc[0], &what("acc@1"));
        close(got.acc_at_5, acc[1], &what("acc@5"));
        close(got.acc_at_10, acc[2], &what("acc@10"));
        close(got.hit_at_1, hit[0], &what("hit@1"));
        close(got.hit_at_5, hit[1], &what("hit@5"));
        close(got.hit_at_10, hit[2], &what("hit@10"));
        close(got.recall_at_1, rec[0], &what("recall@1"));
        close(got.recall_at_5, rec[1], &what("recall@5"));
        close(got.recall_at_10, rec[2], &what("recall@10"));
        close(got.reciprocal_rank, *rr, &what("reciprocal rank"));
    }
    assert_eq!((a.gold, a.predicted, a.correct, a.first_hit_rank), (2, 6, 2, Some(2)));
    assert_eq!((b.gold, b.predicted, b.correct, b.first_hit_rank), (1, 2, 1, Some(1)));
    assert_eq!((c.gold, c.predicted, c.correct, c.first_hit_rank), (3, 0, 0, None));

    // Means over the four (n = 4):
    //   precision (1/3 + 1/2 + 0 + 6/7) / 4 = 0.422619…; recall (1+1+0+1)/4 = 0.75;
    //   F1 (1/2 + 2/3 + 0 + 12/13) / 4 = 0.522435…;
    //   Acc@1 1/4, Acc@5 2/4, Acc@10 3/4; Hit@1 2/4, Hit@5 3/4, Hit@10 3/4;
    //   Recall@1 (0 + 1 + 0 + 1/6)/4 = 0.291666…, Recall@5 (1 + 1 + 0 + 5/6)/4 = 0.708333…,
    //   Recall@10 3/4; MRR (0.5 + 1 + 0 + 1)/4 = 0.625.
    let mean = LevelAggregate::mean([&a, &b, &c, &d]);
    assert_eq!(mean.n, 4);
    close(mean.precision, 0.422_619_047_619_047_6, "mean precision");
    close(mean.recall, 0.75, "mean recall");
    close(mean.f1, 0.522_435_897_435_897_4, "mean f1");
    close(mean.acc_at_1, 0.25, "mean acc@1");
    close(mean.acc_at_5, 0.5, "mean acc@5");
    close(mean.acc_at_10, 0.75, "mean acc@10");
    close(mean.hit_at_1, 0.5, "mean hit@1");
    close(mean.hit_at_5, 0.75, "mean hit@5");
    close(mean.hit_at_10, 0.75, "mean hit@10");
    close(mean.recall_at_1, 0.291_666_666_666_666_7, "mean recall@1");
    close(mean.recall_at_5, 0.708_333_333_333_333_4, "mean recall@5");
    close(mean.recall_at_10, 0.75, "mean recall@10");
    close(mean.mrr, 0.625, "mrr");

    // No instances: n = 0 and zeros, not NaN.
    let empty = LevelAggregate::mean([]);
    assert_eq!(empty, LevelAggregate::default());
}
