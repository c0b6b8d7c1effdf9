#!/usr/bin/env python3
"""Planner vs simulator on every shipped scenario: the chosen plan and every baseline that fits.

Usage: scripts/agreement-table.py [path/to/shardscope] [scenario-name ...] > table.md   (a Markdown table;
naming scenarios limits it to them)
"""
import json
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
tool = sys.argv[1] if len(sys.argv) > 1 else str(root / "build/default/apps/shardscope/shardscope")
print("| scenario | strategy | samples per GPU | planner s | simulator s | difference | planner rank | simulator rank |")
print("|---|---|---|---|---|---|---|---|")
rank_swaps = []
worst = 0.0
only = set(sys.argv[2:])
for scenario in sorted((root / "scenarios").glob("*.yaml")):
    if only and scenario.stem not in only:
        continue
    # Each baseline at its own best micro-batch, as `simulate --strategy` plans it.
    planned = subprocess.run([tool, "plan", str(scenario), "--json", "--batch-policy", "own"],
                             capture_output=True, text=True)
    if planned.returncode != 0:
        print(f"| {scenario.stem} | (nothing fits: exit {planned.returncode}) | | | | | | |")
        continue
    report = json.loads(planned.stdout)
    rows = []
    strategies = [("shardscope", report["plan"]["strategy"] if report.get("fits") else None)]
    names = ["shardscope"] if report.get("fits") else []
    names += [b["strategy"] for b in report["baselines"] if b["fits"]]
    for name in names:
        args = [tool, "simulate", str(scenario), "--json"]
        if name != "shardscope":
            args += ["--strategy", name]
        out = subprocess.run(args, capture_output=True, text=True)
        if out.returncode != 0:
            rows.append((name, None, None, None, out.stderr.strip().splitlines()[-1]))
            continue
        sim = json.loads(out.stdout)
        micro = sim["samples_per_second"] * sim["iteration_seconds"] / sim["gpus"].__len__()
        rows.append((name, sim["planner"]["iteration_seconds"], sim["iteration_seconds"], round(micro), ""))
    ok = [r for r in rows if r[1] is not None]
    # Rank by throughput (samples per micro-batch-step are equal for planner and simulator of one strategy,
    # so seconds per sample ranks them): each strategy runs its own batch size.
    def per_sample(r, col):
        return r[col] / r[3]
    planner_order = sorted(ok, key=lambda r: per_sample(r, 1))
    sim_order = sorted(ok, key=lambda r: per_sample(r, 2))
    for name, planned, simulated, micro, err in rows:
        if planned is None:
            print(f"| {scenario.stem} | {name} | | | | {err} | | |")
            continue
        diff = (simulated - planned) / planned
        worst = max(worst, abs(diff))
        pr = 1 + [r[0] for r in planner_order].index(name)
        sr = 1 + [r[0] for r in sim_order].index(name)
        print(f"| {scenario.stem} | {name} | {micro} | {planned:.4f} | {simulated:.4f} | {diff:+.2%} | {pr} | {sr} |")
    if ok and planner_order[0][0] != sim_order[0][0]:
        rank_swaps.append(f"{scenario.stem}: planner's fastest {planner_order[0][0]}, simulator's {sim_order[0][0]}")
print(f"\nworst |difference|: {worst:.2%}")
print("fastest strategy differs: " + ("; ".join(rank_swaps) if rank_swaps else "nowhere"))
