#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EMST plugin developers
# SPDX-License-Identifier: BSD-3-Clause
#
# Scaling of the distributed engine (emst_distributed, emst/Distributed.h): the same cloud split
# over 1, 2, 4 ranks, per split, with the time of each phase, the ranks' CPU time, the largest
# rank's memory, the points each rank exchanged, and against the first rank count the parallel
# efficiency (wall time) and the work efficiency (CPU time: what the distribution adds, whatever
# else runs on the machine). The clouds are the standard synthetic sets
# (../shared/tools/gen_points.cpp, seed 12345), 3D.
#
# usage: Testing/Benchmarks/run_distributed.sh OUTDIR [--points 1e6] [--sets "uniform cosmo"]
#          [--ranks "1 2 4"] [--splits "slabs chunks interleave"] [--backend auto|cuda|cpu]
#          [--threads N] [--repeat N] [--mpi] [--device-per-rank] [--check]
#   --mpi              run the ranks as MPI processes (mpiexec; MPIEXEC names it, MPIEXEC_FLAGS adds
#                      flags, e.g. "--oversubscribe --allow-run-as-root"); default: in-process ranks
#                      (--ranks P of emst_distributed), which share the process's memory and GPU
#   --device-per-rank  with --mpi on a node with several GPUs: rank r of the node uses GPU r
#   --check            also compare each run's edges with the serial engine on rank 0 (slow, and
#                      rank 0 then holds every point: correctness runs only)
# Writes OUTDIR/results.md (a Markdown table and the commands), OUTDIR/results.csv and
# OUTDIR/distributed.log. Exit status: 0 when every run succeeded (and matched, with --check),
# 1 otherwise, 2 usage.
#
# Environment: EMST_SHARED_DIR (folder with tools/), EMST_BUILD_DIR (default: build; the program is
# Kernels/emst_distributed there), EMST_BENCH_DATA (generated sets, default EMST_BUILD_DIR/bench-data).
set -u
set -o pipefail

usage() {
  sed -n '10,21p' "$0" >&2
  exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || usage
out=$1
shift
case "$out" in -*) usage ;; esac
points=1e6
sets="uniform cosmo"
ranks_list="1 2 4"
splits="slabs chunks interleave"
backend=auto
threads=0
repeat=1
mpi=0
device_per_rank=0
check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --points) [ $# -ge 2 ] || usage; points=$2; shift ;;
    --sets) [ $# -ge 2 ] || usage; sets=$2; shift ;;
    --ranks) [ $# -ge 2 ] || usage; ranks_list=$2; shift ;;
    --splits) [ $# -ge 2 ] || usage; splits=$2; shift ;;
    --backend) [ $# -ge 2 ] || usage; backend=$2; shift ;;
    --threads) [ $# -ge 2 ] || usage; threads=$2; shift ;;
    --repeat) [ $# -ge 2 ] || usage; repeat=$2; shift ;;
    --mpi) mpi=1 ;;
    --device-per-rank) device_per_rank=1 ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "run_distributed.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

shared=${EMST_SHARED_DIR:-}
if [ -z "$shared" ]; then
  if [ -d "$repo/../shared/tools" ]; then
    shared=$(cd "$repo/../shared" && pwd)
  else
    shared="$repo/.device-data"
  fi
fi
build=${EMST_BUILD_DIR:-$repo/build}
program="$build/Kernels/emst_distributed"
data=${EMST_BENCH_DATA:-$build/bench-data}
mpiexec=${MPIEXEC:-mpiexec}
mpiflags=${MPIEXEC_FLAGS:-}
mkdir -p "$out" "$data" || exit 1
out=$(cd "$out" && pwd)
log="$out/distributed.log"
csv="$out/results.csv"
table="$out/results.md"
: >"$log"
say() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$log"; }

if [ ! -x "$program" ]; then
  say "ERROR: $program not found (build the emst_distributed target, or set EMST_BUILD_DIR)"
  exit 1
fi
generator="$data/gen_points"
if [ ! -x "$generator" ]; then
  if [ -f "$shared/tools/gen_points.cpp" ]; then
    g++ -O2 -std=c++17 -o "$generator" "$shared/tools/gen_points.cpp" >>"$log" 2>&1 || true
  fi
fi

n=$(awk -v s="$points" 'BEGIN { printf "%d", s + 0 }')
echo "set,points,split,ranks,time_ms,local_tree_ms,certification_ms,rounds_ms,cpu_s,efficiency,work_efficiency,total_weight,max_exchanged_points,mean_exchanged_points,largest_rank_tracked_mb,max_rss_mb,rounds,check" >"$csv"
rows=()
failures=0
for set in $sets; do
  file="$data/${set}_${points}_3d.f32"
  if [ ! -f "$file" ]; then
    if [ ! -x "$generator" ]; then
      say "no $file and no gen_points ($shared/tools/gen_points.cpp): $set skipped"
      failures=$((failures + 1))
      continue
    fi
    say "generating $file"
    "$generator" "$set" "$n" 3 "$file" >>"$log" 2>&1 || { say "gen_points failed"; failures=$((failures + 1)); continue; }
  fi
  for split in $splits; do
    base_time=""
    base_cpu=""
    for ranks in $ranks_list; do
      args=(--split "$split" --backend "$backend" --threads "$threads" --repeat "$repeat")
      [ $check = 1 ] && args+=(--check)
      [ $device_per_rank = 1 ] && args+=(--device-per-rank)
      if [ $mpi = 1 ]; then
        # shellcheck disable=SC2086 # MPIEXEC_FLAGS is a list of flags
        command=("$mpiexec" $mpiflags --bind-to none -np "$ranks" "$program" "${args[@]}" "$file")
      else
        command=("$program" --ranks "$ranks" "${args[@]}" "$file")
      fi
      say "${command[*]}"
      if ! output=$("${command[@]}" 2>>"$log"); then
        say "FAILED: $set $split $ranks ranks"
        echo "$output" >>"$log"
        failures=$((failures + 1))
        continue
      fi
      echo "$output" >>"$log"
      summary=$(echo "$output" | grep '^ranks=' | tail -1)
      field() { echo "$summary" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
      time_ms=$(field time_ms)
      cpu_s=$(field cpu_s)
      total=$(field total_weight)
      max_exchanged=$(field max_exchanged_points)
      rss=$(field max_rss_mb)
      verdict=$(field check)
      [ -n "$verdict" ] || verdict="-"
      [ "$verdict" = FAILED ] && failures=$((failures + 1))
      # Per rank: exchanged points (mean), the largest tracked memory (engine + distributed phases),
      # the rounds, and each phase's time on the rank where it took longest.
      per_rank=$(echo "$output" | grep '^rank=' | awk '{
          for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
          ex += v["exchanged_points"]; mem = v["engine_peak_mb"] + v["host_peak_mb"];
          if (mem > top) top = mem; r = v["rounds"]; k++
          if (v["local_tree_ms"] > tree) tree = v["local_tree_ms"]
          if (v["certification_ms"] > cert) cert = v["certification_ms"]
          if (v["rounds_ms"] > boruvka) boruvka = v["rounds_ms"] }
        END { printf "%.0f %.1f %s %.0f %.0f %.0f", (k ? ex / k : 0), top, r, tree, cert, boruvka }')
      read -r mean_exchanged tracked rounds tree_ms cert_ms rounds_ms <<<"$per_rank"
      [ -n "$base_time" ] || base_time=$time_ms
      [ -n "$base_cpu" ] || base_cpu=$cpu_s
      efficiency=$(awk -v t1="$base_time" -v t="$time_ms" -v p="$ranks" -v p1="${ranks_list%% *}" \
        'BEGIN { printf "%.2f", (t1 * p1) / (t * p) }')
      work=$(awk -v c1="$base_cpu" -v c="$cpu_s" 'BEGIN { printf "%.2f", (c > 0 ? c1 / c : 0) }')
      echo "$set,$n,$split,$ranks,$time_ms,$tree_ms,$cert_ms,$rounds_ms,$cpu_s,$efficiency,$work,$total,$max_exchanged,$mean_exchanged,$tracked,$rss,$rounds,$verdict" >>"$csv"
      rows+=("| $set | $n | $split | $ranks | $time_ms | $tree_ms | $cert_ms | $rounds_ms | $cpu_s | $efficiency | $work | $max_exchanged | $mean_exchanged | $tracked | $rss | $rounds | $total | $verdict |")
    done
  done
done

{
  echo "# Distributed EMST scaling ($(date +%Y-%m-%d), $(hostname))"
  echo
  echo "Command: \`Testing/Benchmarks/run_distributed.sh OUTDIR --points $points --sets \"$sets\" --ranks \"$ranks_list\" --splits \"$splits\" --backend $backend --threads $threads --repeat $repeat$([ $mpi = 1 ] && echo " --mpi")$([ $check = 1 ] && echo " --check")\`"
  echo "Ranks: $([ $mpi = 1 ] && echo "MPI processes ($mpiexec $mpiflags --bind-to none)" || echo "in-process (threads of one process: max RSS is the whole process's)")."
  echo "Efficiency: (T(first ranks) * first ranks) / (T * ranks), T the slowest rank's wall time (the fastest of $repeat run(s)); work efficiency: CPU(first ranks) / CPU, CPU the ranks' CPU seconds added up."
  echo
  echo "Phases: each one's wall time on the rank where it took longest (local tree: the engine on the rank's points; certification: the local edges proven global; rounds: the distributed Borůvka)."
  echo
  echo "| set | n | split | ranks | time ms | local tree ms | certification ms | rounds ms | CPU s | efficiency | work efficiency | max exchanged points | mean exchanged points | largest rank tracked MB | max RSS MB | rounds | total weight | check |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
  for row in "${rows[@]}"; do
    echo "$row"
  done
} >"$table"
cat "$table"
[ $failures = 0 ]
