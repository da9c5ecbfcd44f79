#!/usr/bin/env bash
# Fetch the official Array API conformance suite (data-apis/array-api-tests) into DEST,
# checked out at the commit dlarray is tested against, with its spec submodule
# (data-apis/array-api). The suite is never vendored into dlarray: CI fetches it with this
# script and points array_api_conformance/run.py at it through ARRAY_API_TESTS_DIR.
#
# Usage:   array_api_conformance/fetch_suite.sh DEST
#
# DEST may be absent (it is cloned) or an earlier checkout made by this script (it is moved
# to the pinned commit). Mirrors can replace GitHub through two environment variables:
#   ARRAY_API_TESTS_URL  URL or path of a data-apis/array-api-tests clone
#   ARRAY_API_SPEC_URL   URL or path of a data-apis/array-api clone (the submodule)
# Keep the two SHAs below equal to SUITE_COMMIT and SPEC_COMMIT in run.py.
set -euo pipefail

SUITE_COMMIT=55fcc60179efa2680ddd6cd926ddf17b83530e2b  # 2026.02.26-20-g55fcc60
SPEC_COMMIT=5f847a3858875c682ae901aa22b0413bf24be9da   # submodule array-api at that commit
SUITE_URL=${ARRAY_API_TESTS_URL:-https://github.com/data-apis/array-api-tests.git}
SPEC_URL=${ARRAY_API_SPEC_URL:-}
SUBMODULE_NAME=array_api_tests/array-api  # its name in the suite's .gitmodules; path array-api

if [[ $# -ne 1 ]]; then
    echo "usage: $0 DEST" >&2
    exit 2
fi
DEST=$1

say() { echo "fetch_suite: $*"; }

if [[ -e "$DEST/.git" ]]; then
    say "reusing the existing checkout in $DEST"
    if ! git -C "$DEST" cat-file -e "$SUITE_COMMIT^{commit}" 2>/dev/null; then
        say "fetching $SUITE_COMMIT from origin"
        git -C "$DEST" fetch --quiet origin
    fi
elif [[ -e "$DEST" && -n "$(ls -A "$DEST")" ]]; then
    echo "fetch_suite: $DEST exists, is not empty and is not a git checkout; refusing" >&2
    exit 1
else
    say "cloning $SUITE_URL into $DEST"
    git clone --quiet "$SUITE_URL" "$DEST"
fi

say "checking out $SUITE_COMMIT"
git -C "$DEST" -c advice.detachedHead=false checkout --quiet "$SUITE_COMMIT"

git -C "$DEST" submodule --quiet init
if [[ -n "$SPEC_URL" ]]; then
    say "using $SPEC_URL for the spec submodule"
    git -C "$DEST" config "submodule.$SUBMODULE_NAME.url" "$SPEC_URL"
fi
say "updating the spec submodule array-api"
git -C "$DEST" submodule --quiet update --init

suite_head=$(git -C "$DEST" rev-parse HEAD)
spec_head=$(git -C "$DEST/array-api" rev-parse HEAD)
say "suite    $suite_head ($(git -C "$DEST" describe --tags --always HEAD))"
say "spec     $spec_head"
if [[ "$suite_head" != "$SUITE_COMMIT" || "$spec_head" != "$SPEC_COMMIT" ]]; then
    echo "fetch_suite: checkout does not match the pinned commits" >&2
    exit 1
fi
say "done; now run: export ARRAY_API_TESTS_DIR=$(cd "$DEST" && pwd)"
