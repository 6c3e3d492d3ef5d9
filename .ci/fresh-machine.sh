#!/usr/bin/env bash
# Run .ci/run as on a fresh machine: a fresh clone of the committed HEAD, an empty cargo home
# (the toolchain's own binaries only: no registry, no git checkouts, no cargo-fuzz), an empty
# cargo target directory, a new venv and an empty pip cache. .ci/run prints each stage's time and
# a table of them at the end; this prints the total too.
#
# Usage: .ci/fresh-machine.sh [WORK_DIR]   (default: a new temporary directory, removed after)
#
# What it cannot make fresh: the system packages (Chromium, tmux) when the machine already has
# them (.ci/run installs them in the background while the other stages run), the Rust toolchain
# and Python themselves (the machine image), and the network, whose speed sets the download time.
set -euo pipefail
SOURCE=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
WORK=${1:-}
if [ -z "$WORK" ]; then
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

# The toolchain's binaries (rustup's proxies: cargo, rustc, clippy, rustfmt), not what
# `cargo install` added to this machine.
OLD_CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
CARGO_HOME="$WORK/cargo-home"
mkdir -p "$CARGO_HOME/bin"
for tool in "$OLD_CARGO_BIN"/*; do
    case "$(basename "$tool")" in
        cargo-fuzz | cargo-binstall | maturin) ;; # installed by hand or by CI, not in the image
        *) cp -p "$tool" "$CARGO_HOME/bin/" ;;
    esac
done
export CARGO_HOME
# The old cargo bin off PATH (what `cargo install` put there must not be found), the new one on.
PATH=$(tr ':' '\n' <<<"$PATH" | grep -vxF "$OLD_CARGO_BIN" | paste -sd: -)
export PATH="$CARGO_HOME/bin:$PATH"

git clone --quiet --no-local "$SOURCE" "$WORK/panda-core"
echo "fresh clone of $(git -C "$WORK/panda-core" log -1 --format='%h %s' | cut -c1-90)"

python3 -m venv "$WORK/venv"
export PATH="$WORK/venv/bin:$PATH"
export PIP_CACHE_DIR="$WORK/pip-cache" # empty, and filled by this run as a new machine's would be
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset CARGO_TARGET_DIR PYTHONPATH VIRTUAL_ENV

started=$(date +%s)
status=0
"$WORK/panda-core/.ci/run" || status=$?
echo "fresh-machine run: $(($(date +%s) - started))s, exit status $status (work directory $WORK)"
exit "$status"
