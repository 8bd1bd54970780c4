//! The text form of a research report: the figures per population and claim, and each
//! counterexample with its picture, as `retrodb research bridgit` prints them.
//!
//! The invariant: the text reads the [`Report`] only; every number it prints is in the JSON.

use super::figures::{Population, Report, SampleFigures, SpanningTreeFigures};
use super::scan::RANKINGS;

/// The game-order table of one population: one row per variant and mover, under the first
/// convention, with a note on whether the other conventions agree.
fn write_game_order(s: &mut String, r: &Report, p: &Population) {
    use std::fmt::Write;
    let cs: Vec<String> = r
        .game_values
        .iter()
        .map(|v| v.free_moves.to_string())
        .collect();
    let _ = writeln!(
        s,
        "Option-ranking conjecture against the game order (a finished board worth C free moves \
         to its winner; C = {}: {}):\n",
        cs.join(", "),
        if r.game_order_same_for_every_c == Some(true) {
            "every pair's order is the same for each C, so is every figure below"
        } else {
            "the figures differ between conventions; rows for each C"
        }
    );
    let _ = writeln!(
        s,
        "Pairs of options whose order as games depends on C: {}.\n",
        p.pairs_order_depends_on_c.unwrap_or(0)
    );
    let _ = writeln!(
        s,
        "| variant | mover | C | pairs | ranked pairs: better / equal / worse / incomparable | of these, one winning at once: all / better / worse / incomparable | 'equivalent' pairs: equal / ordered / incomparable | equal keys beside an immediate win | positions where every claim holds | positions with a dominated top option |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    let same = r.game_order_same_for_every_c == Some(true);
    let rows = if same {
        &p.game_order[..RANKINGS.len().min(p.game_order.len())]
    } else {
        &p.game_order[..]
    };
    for f in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} ({}) / {} ({}) / {} ({}) / {} ({}) | {} / {} / {} / {} | {} ({}) / {} / {} | {} | {} of {} ({}) | {} ({}) |",
            f.variant,
            f.mover,
            if same {
                cs.join(", ")
            } else {
                f.free_moves.to_string()
            },
            f.pairs,
            f.ranked_better,
            pct(f.ranked_better, f.ranked),
            f.ranked_equal,
            pct(f.ranked_equal, f.ranked),
            f.ranked_worse,
            pct(f.ranked_worse, f.ranked),
            f.ranked_incomparable,
            pct(f.ranked_incomparable, f.ranked),
            f.ranked_with_immediate_win,
            f.ranked_with_immediate_win_better,
            f.ranked_with_immediate_win_worse,
            f.ranked_with_immediate_win_incomparable,
            f.equivalent_equal,
            pct(f.equivalent_equal, f.equivalent),
            f.equivalent_ordered,
            f.equivalent_incomparable,
            f.tied_beside_immediate_win,
            f.positions_all_claims_hold,
            f.positions,
            pct(f.positions_all_claims_hold, f.positions),
            f.positions_top_dominated,
            pct(f.positions_top_dominated, f.positions)
        );
    }
    let _ = writeln!(
        s,
        "\n*Ranked pairs*: the ranking puts one option above the other, and the statement claims \
         it is a strictly better game (`G_i^L > G_j^L`; for Right, smaller); the columns say how \
         the higher-ranked option really compares with the lower one (`compare` on canonical \
         forms). *'Equivalent' pairs*: equal keys and no option winning at once; the statement \
         claims equal games. A top option is *dominated* when another option is a strictly \
         better game. An option that wins at once is the number C; when only one of the pair \
         does, it is never better than the other, nor equal to it: the winning cell stays free \
         after the other move, so that option has C among its mover's options.\n"
    );
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.2}%", 100.0 * part as f64 / whole as f64)
    }
}

/// What a sampled report read from its table.
fn reads(f: &SampleFigures) -> &'static str {
    if f.remoteness {
        "values and remoteness"
    } else {
        "values only"
    }
}

/// The sampled report: how it was drawn, every share with its interval, what is left out.
fn write_sample(s: &mut String, r: &Report, f: &SampleFigures) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "### A uniform sample of the {} population ({})\n\n{}; seed {}. {} draws \
         for {} open positions: the population holds about {:.4e} positions (95% interval \
         {:.4e} to {:.4e}).\n",
        f.population_name,
        reads(f),
        f.method,
        f.seed,
        f.draws,
        f.positions,
        f.population.value,
        f.population.low,
        f.population.high
    );
    let _ = writeln!(
        s,
        "| figure | what | count | share | {:.0}% interval |",
        100.0 * f.confidence
    );
    let _ = writeln!(s, "|---|---|---|---|---|");
    for p in &f.proportions {
        let (share, interval) = match &p.share {
            Some(e) => (
                format!("{:.2}%", 100.0 * e.value),
                format!(
                    "{:.2}% – {:.2}% ({})",
                    100.0 * e.low,
                    100.0 * e.high,
                    p.interval
                ),
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} of {} | {share} | {interval} |",
            p.name, p.what, p.count, p.of
        );
    }
    let _ = writeln!(
        s,
        "\n*wilson*: a share of sampled positions (independent draws), Wilson's score interval; \
         *ratio*: a share of pairs or moves, which come several to a position, the ratio \
         estimator's interval by the delta method over positions (it has no width when every \
         sampled position has the same share, e.g. 0 or 100%: read the position-level figure \
         beside it).\n"
    );
    let _ = writeln!(
        s,
        "Left out of a sample of bridgit:{} ({}):\n",
        r.size,
        reads(f)
    );
    for l in &f.left_out {
        let _ = writeln!(s, "- {} — needs {}", l.figures, l.needs);
    }
    let _ = writeln!(s);
}

/// A count the scan may not have measured.
fn opt(v: Option<u64>) -> String {
    v.map_or("n/a".into(), |v| v.to_string())
}

/// The report as text for people (Markdown-friendly).
pub fn render_text(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Bridg-It size {} ({})
",
        r.size, r.game
    );
    if let Some(c) = &r.lehman_check {
        let _ = writeln!(
            s,
            "The table's values against Lehman's criterion ({}): {} compared, {} disagree.\n",
            c.compared, c.values, c.disagreements
        );
    }
    if let Some(f) = &r.sample {
        write_sample(&mut s, r, f);
    }
    if let Some(st) = &r.spanning_tree {
        write_spanning_tree(&mut s, st);
    }
    for p in r.populations.iter().filter(|_| r.sample.is_none()) {
        write_population(&mut s, r, p);
    }
    write_counterexamples(&mut s, r);
    s
}

fn write_spanning_tree(s: &mut String, st: &SpanningTreeFigures) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "### Spanning-tree strategy (Left first, from the empty board)
"
    );
    let _ = writeln!(
        s,
        "trees {} and {} (+ the virtual edge joining the ends); first move {}; {} complete lines \
         against every reply sequence; {} lost; {} positions with Left to move on the way, {} of \
         them lost by the table.\n",
        st.trees[0].join(" "),
        st.trees[1].join(" "),
        st.first_move,
        st.lines,
        st.losses,
        st.left_to_move,
        st.table_says_lost
    );
}

/// One population's tables: the optional strategy, the ranking against the table, and the
/// ranking against the game order (when measured).
fn write_population(s: &mut String, r: &Report, p: &Population) {
    use std::fmt::Write;
    let what = if p.name == "all" {
        "every open configuration, either player to move"
    } else {
        "those arising in play, Left moving first"
    };
    let _ = writeln!(
        s,
        "### Population '{}': {} positions ({what})\n",
        p.name, p.positions
    );
    let o = &p.optional;
    let _ = writeln!(s, "Optional spanning-tree strategy, executable by:\n");
    let _ = writeln!(s, "| mover only | opponent only | both | neither |");
    let _ = writeln!(s, "|---|---|---|---|");
    let _ = writeln!(
        s,
        "| {} ({}) | {} ({}) | {} ({}) | {} ({}) |\n",
        o.mover_only,
        pct(o.mover_only, o.positions),
        o.opponent_only,
        pct(o.opponent_only, o.positions),
        o.both,
        pct(o.both, o.positions),
        o.neither,
        pct(o.neither, o.positions)
    );
    let _ = writeln!(
        s,
        "- executable by the mover: {} won, {} lost; won but not executable: {}",
        o.mover_executable_won, o.mover_executable_lost, o.won_not_executable
    );
    let _ = writeln!(
        s,
        "- moves it may choose in won positions: {}, keeping the win: {} ({}); won positions \
         where every such move keeps the win: {} of {}\n",
        o.moves_from_won,
        o.moves_keeping_win,
        pct(o.moves_keeping_win, o.moves_from_won),
        o.won_all_moves_keep,
        o.mover_executable_won
    );
    let _ = writeln!(
        s,
        "Option-ranking conjecture (positions with at least two options):\n"
    );
    let _ = writeln!(
        s,
        "| variant | mover | positions | with a win | top has a win | top all win | win below loss | pairs agree / contradict / conj. ties / table ties / both tie | win-vs-loss pairs right / wrong / tied | ranked pairs by outcome class: consistent / refuted (second bit only) | 'equivalent' pairs: outcome differs / remoteness differs / class differs |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for k in &p.ranking {
        let t = k.table_order.as_ref();
        let c = k.outcome_class.as_ref();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} ({}) | {} ({}) | {} | {} / {} / {} / {} / {} | {} / {} / {} | {} / {} ({}) | {}: {} / {} / {} |",
            k.variant,
            k.mover,
            k.positions,
            k.with_winning_option,
            k.top_has_win,
            pct(k.top_has_win, k.with_winning_option),
            k.top_all_win,
            pct(k.top_all_win, k.with_winning_option),
            k.win_below_loss_positions,
            opt(t.map(|t| t.pairs_agree)),
            opt(t.map(|t| t.pairs_contradict)),
            opt(t.map(|t| t.pairs_conjecture_ties_table_orders)),
            opt(t.map(|t| t.pairs_conjecture_orders_table_ties)),
            opt(t.map(|t| t.pairs_both_tie)),
            k.outcome_right,
            k.outcome_wrong,
            k.outcome_tied,
            opt(c.map(|c| c.class_ranked_consistent)),
            opt(c.map(|c| c.class_ranked_refuted)),
            opt(c.map(|c| c.class_refuted_second_bit_only)),
            k.equivalent_pairs,
            k.equivalent_outcome_differs,
            opt(t.map(|t| t.equivalent_remoteness_differs)),
            opt(c.map(|c| c.equivalent_class_differs))
        );
    }
    let _ = writeln!(
        s,
        "\nPairs of options: *agree* / *contradict* — both the ranking and the table order the \
         pair, the same way / opposite ways; *conj. ties* — the ranking ties a pair the table \
         orders; *table ties* — the ranking orders a pair the table ties. 'Equivalent' pairs \
         have equal keys in a position where no option wins at once. These columns compare \
         the ranking with win/loss and remoteness only; *outcome class* uses both outcome \
         bits (the mover wins the option moving second, and moving first), which `G >= H` \
         must respect.\n"
    );
    if !p.game_order.is_empty() {
        write_game_order(s, r, p);
    }
}

fn write_counterexamples(s: &mut String, r: &Report) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "### Smallest counterexamples{}\n",
        if r.sample.is_some() {
            " (in the sample)"
        } else {
            ""
        }
    );
    if r.counterexamples.is_empty() {
        let _ = writeln!(s, "none\n");
    }
    for c in &r.counterexamples {
        let _ = writeln!(s, "#### {}\n", c.claim);
        let _ = writeln!(s, "{}.\n", c.explanation);
        let _ = writeln!(
            s,
            "position `{}` ({}; {}{}){}\n",
            c.position,
            if c.in_play {
                "arises in play"
            } else {
                "does not arise in play"
            },
            c.value,
            c.remoteness.map_or(String::new(), |k| format!(" in {k}")),
            c.svg
                .as_ref()
                .map_or(String::new(), |f| format!(", picture {f}"))
        );
        for m in &c.moves {
            let _ = writeln!(
                s,
                "- move {}: {}; leaves the opponent a {}{}{}",
                m.name,
                m.role,
                m.value,
                m.remoteness.map_or(String::new(), |k| format!(" in {k}")),
                m.game_value
                    .as_ref()
                    .map_or(String::new(), |v| format!("; value `{v}`"))
            );
        }
        let _ = writeln!(s, "\n```\n{}```\n", c.picture);
    }
}
