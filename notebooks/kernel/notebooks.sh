#!/usr/bin/env bash
# bin/arbor notebooks [--execute [NOTEBOOK...]] [--strip]
# Installs the Java kernel for this checkout under jobs/target/notebooks (kernel.json holds
# absolute paths, so it is generated here and never committed) and prints how to start Jupyter.
#   --execute  runs every notebook (or the ones named) headless against the demo warehouse,
#              writing the executed copies to jobs/target/notebooks/executed; exits 1 if any
#              cell of any notebook fails; skips (and names) a notebook whose tables
#              (metadata.arbor.needs) the warehouse lacks
#   --strip    removes outputs and execution counts from notebooks/*.ipynb (before a commit)
# bin/arbor calls it with JAVA_HOME set and the jobs jar freshly built. Jupyter comes from
# Debian: apt-get install --no-install-recommends jupyter-nbconvert (jupyter-notebook to browse).
# ARBOR_NOTEBOOK_MEMORY (default 6g) is the kernel JVM's heap.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="$REPO/jobs/target/arbor-jobs.jar"
FLAGS="$REPO/jobs/target/classes/arbor-jvm.options"
OUT="$REPO/jobs/target/notebooks"
KERNEL_JAR="$OUT/rapaio-jupyter-kernel.jar"
PATCH="$OUT/kernel-patch"
KERNELS="$OUT/jupyter"
# Debian's Jupyter by full path: another python3 may come first on PATH.
JUPYTER=/usr/bin/jupyter

die() { echo "arbor notebooks: $*" >&2; exit 2; }

execute=0 strip=0 chosen=()
for a in "$@"; do
  case "$a" in
    --execute) execute=1 ;;
    --strip) strip=1 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$a' (options: --execute, --strip)" ;;
    *) [[ -f "$a" ]] || die "no such notebook: $a"; chosen+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")") ;;
  esac
done
(( ${#chosen[@]} == 0 )) || (( execute )) || die "notebook names go with --execute"

[[ -x "$JUPYTER" ]] || die "$JUPYTER not found: apt-get update && apt-get install --no-install-recommends jupyter-nbconvert jupyter-notebook"

if (( strip )); then
  # Outputs, execution counts and run timestamps out; nbformat's own layout, so a stripped
  # notebook that did not change is byte for byte the same.
  /usr/bin/python3 - "$REPO"/notebooks/*.ipynb <<'PY'
import sys, nbformat
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
    nb.metadata["language_info"] = {"name": "java"}
    nbformat.write(nb, path)
PY
  echo "arbor notebooks: stripped $(ls "$REPO"/notebooks/*.ipynb | wc -l) notebook(s)" >&2
  exit 0
fi

[[ -f "$JAR" && -f "$FLAGS" ]] || die "the jobs jar is missing: run bin/arbor notebooks (it builds it) or mvn -DskipTests -pl jobs -am package"
: "${JAVA_HOME:?JAVA_HOME must name a JDK >= 21 (bin/arbor sets it)}"

# 1. The kernel jar, from Maven Central through the build (jobs/pom.xml, profile notebooks).
if [[ ! -f "$KERNEL_JAR" ]]; then
  echo "arbor notebooks: fetching the Java kernel (mvn -Pnotebooks dependency:copy)..." >&2
  (cd "$REPO" && mvn -q -B -Pnotebooks -pl jobs dependency:copy@notebook-kernel) || die "could not fetch the kernel jar; see the Maven output above"
fi

# 2. Two fixes ahead of the kernel jar on its class path: the start-up hang (LoopThread.java)
#    and java.util.logging at INFO instead of FINEST (logging.properties).
if [[ ! -f "$PATCH/org/rapaio/jupyter/kernel/channels/LoopThread.class" \
      || "$REPO/notebooks/kernel/LoopThread.java" -nt "$PATCH/org/rapaio/jupyter/kernel/channels/LoopThread.class" ]]; then
  mkdir -p "$PATCH"
  "$JAVA_HOME/bin/javac" --release 21 -d "$PATCH" -cp "$KERNEL_JAR" "$REPO/notebooks/kernel/LoopThread.java"
fi
cp "$REPO/notebooks/kernel/logging.properties" "$PATCH/logging.properties"

# 3. kernel.json for this checkout. The kernel runs JShell in its own JVM, so that JVM gets
#    Spark's flags and the project's folders; RJK_CLASSPATH (separated by ';') puts the jobs
#    jar on JShell's class path. ARBOR_REPO tells Notebook.open where the checkout is.
DATA="$REPO/data"
mkdir -p "$DATA/tmp" "$KERNELS/kernels/arbor-java"
ARBOR_NB_JAVA="$JAVA_HOME/bin/java" ARBOR_NB_FLAGS="$(cat "$FLAGS")" ARBOR_NB_MEMORY="${ARBOR_NOTEBOOK_MEMORY:-6g}" \
ARBOR_NB_REPO="$REPO" ARBOR_NB_DATA="$DATA" ARBOR_NB_CP="$PATCH:$KERNEL_JAR" ARBOR_NB_JAR="$JAR" \
/usr/bin/python3 - > "$KERNELS/kernels/arbor-java/kernel.json" <<'PY'
import json, os
e = os.environ
data = e["ARBOR_NB_DATA"]
argv = [e["ARBOR_NB_JAVA"], *e["ARBOR_NB_FLAGS"].split(), "-Xmx" + e["ARBOR_NB_MEMORY"],
        "-Djava.io.tmpdir=" + data + "/tmp", "-Djna.tmpdir=" + data + "/tmp",
        "-Dpolyglot.engine.userResourceCache=" + data + "/cache/graalpy",
        "-Dlog4j2.configurationFile=" + e["ARBOR_NB_REPO"] + "/conf/log4j2.properties",
        "-cp", e["ARBOR_NB_CP"], "org.rapaio.jupyter.kernel.MainApp", "{connection_file}"]
env = {"RJK_CLASSPATH": e["ARBOR_NB_JAR"], "ARBOR_REPO": e["ARBOR_NB_REPO"],
       "DJL_OFFLINE": "true", "DJL_CACHE_DIR": data + "/cache/djl", "ENGINE_CACHE_DIR": data + "/cache/djl",
       "SPARK_LOCAL_IP": "127.0.0.1"}
print(json.dumps({"argv": argv, "display_name": "Java (Arbor)", "language": "java",
                  "interrupt_mode": "message", "env": env}, indent=1))
PY
echo "arbor notebooks: kernel 'arbor-java' installed in $KERNELS/kernels/arbor-java" >&2

if (( ! execute )); then
  cat >&2 <<EOF
Start Jupyter with it (after bin/arbor demo, which builds the demo warehouse):
  JUPYTER_PATH=$KERNELS $JUPYTER notebook $REPO/notebooks
EOF
  exit 0
fi

# 4. Headless run against the demo warehouse; nbconvert exits non-zero when a cell fails.
[[ -d "$DATA/warehouse/papers/_delta_log" ]] || die "no demo warehouse at $DATA/warehouse: run bin/arbor demo first"
(( ${#chosen[@]} )) || chosen=("$REPO"/notebooks/*.ipynb)
mkdir -p "$OUT/executed"
failed=() skipped=() ran=0
for nb in "${chosen[@]}"; do
  # A notebook names the tables it reads (metadata.arbor.needs); one whose tables the warehouse
  # lacks is skipped, loudly, rather than failed: the demo warehouse may not hold a train run.
  missing="$(/usr/bin/python3 -c '
import json, os, sys
needs = json.load(open(sys.argv[1])).get("metadata", {}).get("arbor", {}).get("needs", [])
print(" ".join(t for t in needs if not os.path.isdir(os.path.join(sys.argv[2], t, "_delta_log"))))' "$nb" "$DATA/warehouse")"
  if [[ -n "$missing" ]]; then
    echo "arbor notebooks: SKIPPED $(basename "$nb"): the warehouse has no table $missing (run the job that writes it, e.g. bin/arbor train)" >&2
    skipped+=("$(basename "$nb")")
    continue
  fi
  ran=$((ran + 1))
  echo "arbor notebooks: executing $(basename "$nb")..." >&2
  start=$SECONDS
  if JUPYTER_PATH="$KERNELS" "$JUPYTER" nbconvert --log-level=WARN --to notebook --execute \
      --ExecutePreprocessor.kernel_name=arbor-java --ExecutePreprocessor.timeout=1800 \
      --ExecutePreprocessor.startup_timeout=300 --output-dir "$OUT/executed" "$nb"; then
    echo "arbor notebooks: $(basename "$nb") ok ($((SECONDS - start)) s)" >&2
  else
    echo "arbor notebooks: $(basename "$nb") FAILED ($((SECONDS - start)) s)" >&2
    failed+=("$(basename "$nb")")
  fi
done
if (( ${#failed[@]} )); then
  echo "arbor notebooks: failed: ${failed[*]}" >&2
  exit 1
fi
echo "arbor notebooks: $ran notebook(s) ran without a failing cell${skipped[*]:+; skipped for missing tables: ${skipped[*]}}; executed copies in $OUT/executed" >&2
