//! Drives postflop-solver (github b-inary/postflop-solver, used as a library, not part of this
//! repository) on one flop spot with the check cadence of its own `solve()`: exploitability
//! computed before the first iteration and after every `check_every`-th one. Written for
//! `bench/bench_subgame.py --postflop-solver DIR`, which builds and runs it.
//!
//! Arguments are `key=value` pairs: board, pot, stack, oop_range, ip_range, the sizes
//! `{flop,turn,river}_{bets,raises}_{oop,ip}`, `targets` (comma-separated % of the pot, the last one
//! stops the solve), `check_every`, `max_iterations`. The thread count is rayon's
//! (`RAYON_NUM_THREADS`). Output: one `check ...` line per exploitability check and a final
//! `result ...` line of `key=value` fields, both read by the harness.

use postflop_solver::*;
use std::collections::HashMap;
use std::time::Instant;

/// CPU seconds of this process so far, all threads (utime + stime of /proc/self/stat).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name (field 2) may hold spaces; the fields after it start past its ')'.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the whole line, 11 and 12 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

/// One street's `[OOP, IP]` sizes from `{street}_bets_{player}` and `{street}_raises_{player}`.
fn sizes(args: &HashMap<String, String>, street: &str) -> [BetSizeOptions; 2] {
    ["oop", "ip"].map(|player| {
        let bets = &args[&format!("{street}_bets_{player}")];
        let raises = &args[&format!("{street}_raises_{player}")];
        BetSizeOptions::try_from((bets.as_str(), raises.as_str()))
            .unwrap_or_else(|e| panic!("{street} sizes of {player} {bets:?} / {raises:?}: {e}"))
    })
}

fn main() {
    let args: HashMap<String, String> = std::env::args()
        .skip(1)
        .map(|a| {
            let (k, v) = a.split_once('=').expect("arguments are key=value");
            (k.to_string(), v.to_string())
        })
        .collect();
    let number = |key: &str| -> f64 { args[key].parse().expect(key) };
    let targets: Vec<f64> = args["targets"].split(',').map(|s| s.parse().unwrap()).collect();
    let pot = number("pot") as i32;
    let check_every = number("check_every") as u32;
    let max_iterations = number("max_iterations") as u32;

    let start = Instant::now();
    let card_config = CardConfig {
        range: [args["oop_range"].parse().unwrap(), args["ip_range"].parse().unwrap()],
        flop: flop_from_str(&args["board"]).unwrap(),
        ..Default::default()
    };
    let tree_config = TreeConfig {
        starting_pot: pot,
        effective_stack: number("stack") as i32,
        flop_bet_sizes: sizes(&args, "flop"),
        turn_bet_sizes: sizes(&args, "turn"),
        river_bet_sizes: sizes(&args, "river"),
        ..Default::default()
    };
    let action_tree = ActionTree::new(tree_config).unwrap();
    let mut game = PostFlopGame::with_config(card_config, action_tree).unwrap();
    let build_s = start.elapsed().as_secs_f64();
    let allocate = Instant::now();
    game.allocate_memory(false);
    let allocate_s = allocate.elapsed().as_secs_f64();

    let to_chips = |pct: f64| (pct / 100.0 * pot as f64) as f32;
    let stop = to_chips(*targets.last().unwrap());
    let wall0 = Instant::now();
    let cpu0 = cpu_seconds();
    let mut solve_s = 0.0;
    let mut solve_cpu = 0.0;
    let mut exploitability = compute_exploitability(&game);
    let mut reached: Vec<Option<(u32, f64, f64, f64)>> = vec![None; targets.len()];
    let mut iterations = 0;
    while iterations < max_iterations && exploitability > stop {
        let t = Instant::now();
        let c = cpu_seconds();
        solve_step(&game, iterations);
        solve_s += t.elapsed().as_secs_f64();
        solve_cpu += cpu_seconds() - c;
        iterations += 1;
        if iterations % check_every == 0 || iterations == max_iterations {
            exploitability = compute_exploitability(&game);
            let pct = 100.0 * exploitability as f64 / pot as f64;
            println!("check iterations={iterations} solve_s={solve_s:.3} pct={pct:.5}");
            for (k, target) in targets.iter().enumerate() {
                if reached[k].is_none() && exploitability <= to_chips(*target) {
                    let wall = wall0.elapsed().as_secs_f64();
                    reached[k] = Some((iterations, solve_s, wall, solve_cpu));
                }
            }
        }
    }
    let checks_cpu = cpu_seconds() - cpu0 - solve_cpu;
    finalize(&mut game);

    game.cache_normalized_weights();
    let weights = [game.normalized_weights(0).to_vec(), game.normalized_weights(1).to_vec()];
    let ev = [
        compute_average(&game.expected_values(0), &weights[0]),
        compute_average(&game.expected_values(1), &weights[1]),
    ];
    let equity = compute_average(&game.equity(0), &weights[0]);
    // OOP's root strategy is [actions x hands]; every action but the first (check) bets.
    let strategy = game.strategy();
    let hands = weights[0].len();
    let total: f32 = weights[0].iter().sum();
    let bet: f32 = (hands..strategy.len()).map(|i| strategy[i] * weights[0][i % hands]).sum();
    let mut line = format!(
        "result build_s={build_s:.4} allocate_s={allocate_s:.4} iterations={iterations} \
         solve_s={solve_s:.3} solve_cpu_s={solve_cpu:.2} checks_cpu_s={checks_cpu:.2} \
         pct={:.5} equity_oop={equity:.6} ev_oop={:.3} ev_ip={:.3} bet_oop={:.4} \
         memory_gb={:.4} threads={}",
        100.0 * exploitability as f64 / pot as f64,
        ev[0],
        ev[1],
        bet / total,
        game.memory_usage().0 as f64 / 1e9,
        rayon::current_num_threads(),
    );
    for (k, target) in targets.iter().enumerate() {
        if let Some((it, s, w, c)) = reached[k] {
            line += &format!(" reached_{target}={it}/{s:.3}/{w:.3}/{c:.2}");
        }
    }
    println!("{line}");
}
