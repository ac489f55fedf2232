#!/usr/bin/env bash
# Run a built Canopy image without a container engine: export its filesystem, chroot into
# it as the image's non-root user with the image's environment, start `canopy serve`, and
# check /api/health, a game, the image's HEALTHCHECK command, the warmed numba cache and a
# clean SIGTERM exit. Needs root (chroot, mount). Usage, after ../shared/tools/container-check.sh:
#   scripts/container-smoke.sh [IMAGE_TAG]     (default: canopy:check)
set -euo pipefail
tag=${1:-canopy:check}
store=(--storage-driver=vfs)
root=$(mktemp -d /var/tmp/canopy-rootfs.XXXXXX)
chmod 755 "$root"  # mktemp makes it 0700: the non-root user must be able to enter its own /
port=${PORT:-18765}
cleanup() {
  [[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null || true
  mountpoint -q "$root/proc" && umount "$root/proc" || true
  rm -rf "$root"
}
trap cleanup EXIT

ctr=$(podman "${store[@]}" create "$tag")
podman "${store[@]}" export "$ctr" | tar -x -C "$root"
podman "${store[@]}" rm "$ctr" >/dev/null
user=$(podman "${store[@]}" image inspect --format '{{.Config.User}}' "$tag")
mapfile -t envs < <(podman "${store[@]}" image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$tag" | grep .)
cmd=$(podman "${store[@]}" image inspect --format '{{json .Config.Cmd}}' "$tag")
echo "image $tag: user=$user cmd=$cmd"
echo "env: ${envs[*]}"
[[ $user == canopy ]] || { echo "FAIL: the image does not run as the canopy user"; exit 1; }
cache_files=$(find "$root/opt/canopy-cache" -type f | wc -l)
echo "numba cache in the image: $cache_files files"
((cache_files > 0)) || { echo "FAIL: numba cache not warmed at build"; exit 1; }

mount -t proc proc "$root/proc"
in_image() { chroot --userspec=canopy:canopy "$root" env -i HOME=/home/canopy "${envs[@]}" "$@"; }
in_image id
t0=$(date +%s.%N)
in_image canopy warm >"$root/tmp/warm.log" 2>&1
t1=$(date +%s.%N)
echo "canopy warm in the image (cache already filled at build): $(echo "$t1 - $t0" | bc) s: $(tail -1 "$root/tmp/warm.log")"

# The image's CMD, with the port changed so it cannot clash with anything on the host.
# (Not through the in_image function: a backgrounded function is a subshell, and $! would be
# that shell's pid instead of the server's.)
chroot --userspec=canopy:canopy "$root" env -i HOME=/home/canopy "${envs[@]}" \
  CANOPY_PORT="$port" CANOPY_HOST=127.0.0.1 \
  sh -c 'exec canopy serve --host "$CANOPY_HOST" --port "$CANOPY_PORT"' >"$root/tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$root/tmp/serve.log"; echo "FAIL: the server died"; exit 1; }
  sleep 0.2
done
echo "GET /api/health -> $(curl -fsS "http://127.0.0.1:$port/api/health")"
game=$(curl -fsS -X POST -H 'Content-Type: application/json' -d '{"human":"none","movetime_ms":200}' "http://127.0.0.1:$port/api/games")
gid=$(echo "$game" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
curl -fsS "http://127.0.0.1:$port/games/$gid" -o /dev/null -D - | grep -i -E '^(HTTP|content-security-policy|x-content-type-options|referrer-policy)' || true
# The HEALTHCHECK command from the Dockerfile, run inside the image.
in_image CANOPY_PORT="$port" python3 -c "import os, urllib.request; print('HEALTHCHECK command:', urllib.request.urlopen('http://127.0.0.1:%s/api/health' % os.environ.get('CANOPY_PORT', '8000'), timeout=4).status)"
for _ in $(seq 1 150); do  # wait for the engine game's search to run, then stop the server
  curl -fsS "http://127.0.0.1:$port/api/health" | grep -q '"running":[1-9]' && break
  sleep 0.2
done
moves=$(curl -fsS "http://127.0.0.1:$port/api/games/$gid" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["moves"]))')
echo "game $gid: $moves plies before SIGTERM"
ls -l "$root/data"
kill -TERM "$pid"
set +e; wait "$pid"; status=$?; set -e
pid=
echo "exit status after SIGTERM: $status"
grep -E 'signal: stopped|shut down cleanly' "$root/tmp/serve.log" | cut -c1-200 || true
[[ $status -eq 0 ]] || { tail -20 "$root/tmp/serve.log"; echo "FAIL: not a clean exit"; exit 1; }
# Start again on the same /data: the game is still there with its moves.
chroot --userspec=canopy:canopy "$root" env -i HOME=/home/canopy "${envs[@]}" \
  CANOPY_PORT="$port" CANOPY_HOST=127.0.0.1 \
  sh -c 'exec canopy serve --host "$CANOPY_HOST" --port "$CANOPY_PORT"' >>"$root/tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
  sleep 0.2
done
after=$(curl -fsS "http://127.0.0.1:$port/api/games/$gid" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["moves"]))')
echo "after a restart on the same volume: game $gid has $after plies"
((after >= moves)) || { echo "FAIL: moves lost across the restart"; exit 1; }
kill -TERM "$pid"; wait "$pid" || true; pid=
echo "OK: $tag serves /api/health as user canopy, stops cleanly on SIGTERM and keeps its games"
