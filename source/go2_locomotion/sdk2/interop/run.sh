#!/usr/bin/env bash
# Interop check with CycloneDDS 0.10 in C, the robot's DDS version line: builds robot_stub.c against the system's
# CycloneDDS (Debian: apt install cyclonedds-dev cyclonedds-tools gcc), runs it as the robot on the loopback
# interface and scripts/deploy_sdk2.py against it (stand up, walk a few seconds in place, damping), then prints the
# stub's counts: every LowCmd's CRC checked the way the firmware does it (over the C struct's memory). Run from the
# repository root with the project's environment: source/go2_locomotion/sdk2/interop/run.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-.venv/bin/python}"
work="$(mktemp -d -t go2_sdk2_interop.XXXXXX)"
trap 'rm -rf "$work"' EXIT
domain=$((100 + RANDOM % 130))

(cd "$work" && idlc -l c "$here/unitree_go.idl" && gcc -O2 -Wall -o robot_stub "$here/robot_stub.c" unitree_go.c -I. -lddsc)
# Linux's lo carries multicast without saying so; CycloneDDS 0.10 needs to be told (sdk2/dds.py does the same)
export CYCLONEDDS_URI='<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface name="lo" multicast="true"/></Interfaces></General></Domain></CycloneDDS>'
"$work/robot_stub" "$domain" 16 > "$work/stub.json" &
stub=$!
"$python" scripts/deploy_sdk2.py --bundle pretrained --network lo --domain "$domain" --autostart --ramp 1 \
    --commands "stand:2:0,0,0 walk:4:0.5,0,0" --log "$work/controller.jsonl" | grep -v "overran" || true
wait "$stub"
cat "$work/stub.json"
