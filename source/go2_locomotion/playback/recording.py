"""``scripts/view_recording.py``: open a ``.viser`` recording (``play.py --record``) in a browser without the
simulator, or turn it into one HTML file to share.

    python scripts/view_recording.py run.viser                      # serves http://localhost:8081/?playbackPath=...
    python scripts/view_recording.py run.viser --html run.html      # one self-contained file (viser's player inside)

The player is the viser web client installed with viser (one ``index.html``); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import json
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError, check_writable, exit_on_usage_error, prepare_output_file

# Imported inside functions: viser and its codecs (msgspec, zstandard), optional: only the recording commands need them.

RECORDING_NAME = "recording.viser"


@dataclass(frozen=True)
class RecordingSummary:
    duration_s: float
    """Playback length, the sum of the recorded frame times."""
    messages: int
    frames: int
    """Distinct frame times (a frame is every scene message of one simulation step)."""
    viser_version: str


def summarize(path: Path) -> RecordingSummary:
    """Read a ``.viser`` file (viser's format: 8-byte size, zstd stream of an 8-byte msgpack length, the msgpack
    payload and binary buffers).

    Raises:
        UsageError: The file is missing or is not a viser recording.
    """
    import msgspec.msgpack
    import zstandard

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such recording")
    data = path.read_bytes()
    try:
        inner = zstandard.ZstdDecompressor().decompress(data[8:], max_output_size=int.from_bytes(data[:8], "little"))
        length = int.from_bytes(inner[:8], "little")
        payload = msgspec.msgpack.decode(inner[8 : 8 + length])
        times = [message[0] for message in payload["messages"]]
    except Exception as error:  # any decoding failure means: not a recording this reader understands
        raise UsageError(f"{path}: not a viser recording ({type(error).__name__}: {error})") from None
    return RecordingSummary(
        duration_s=float(payload["durationSeconds"]),
        messages=len(times),
        frames=len(set(times)),
        viser_version=str(payload.get("viserVersion", "")),
    )


def player_html() -> Path:
    """viser's web client (one file) from the installed viser."""
    import viser

    page = Path(viser.__file__).parent / "client" / "build" / "index.html"
    if not page.is_file():
        raise UsageError(f"the installed viser has no built web client ({page} is missing); reinstall viser")
    return page


def write_html(recording: Path, out: Path) -> Path:
    """One HTML file holding viser's player and the recording (viser's embed variables), for sharing."""
    html = player_html().read_text()
    scene = base64.b64encode(Path(recording).read_bytes()).decode("ascii")
    inject = f'<script>window.__VISER_EMBED_DATA__="{scene}";window.__VISER_EMBED_CONFIG__={{darkMode:false}};</script>'
    if "</head>" not in html:
        raise UsageError("the installed viser web client has no </head>: cannot embed the recording")
    out.write_text(html.replace("</head>", inject + "</head>", 1))
    return out


def serve(recording: Path, port: int, bind: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve viser's player and the recording from a temporary folder; returns the running server and the URL."""
    folder = Path(tempfile.mkdtemp(prefix="go2_recording_"))
    shutil.copyfile(player_html(), folder / "index.html")
    shutil.copyfile(recording, folder / RECORDING_NAME)
    handler = functools.partial(_QuietHandler, directory=str(folder))
    try:
        server = http.server.ThreadingHTTPServer((bind, port), handler)
    except OSError as error:
        raise UsageError(f"--port {port} --bind {bind}: cannot listen there ({error.strerror})") from None
    server.folder = folder
    host = "localhost" if bind in ("127.0.0.1", "0.0.0.0") else bind
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}/?playbackPath={RECORDING_NAME}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".viser": "application/octet-stream"}

    def log_message(self, format, *args):  # noqa: A002 - the library's parameter name
        pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Open a .viser playback recording in a browser, or export it.")
    parser.add_argument("recording", type=Path, help="A .viser file written by play.py --record.")
    parser.add_argument("--port", type=int, default=8081, help="Port to serve on (default 8081; 0: any free one).")
    parser.add_argument("--bind", default="127.0.0.1", help="Address to listen on (default 127.0.0.1).")
    parser.add_argument("--html", type=Path, default=None, help="Write one self-contained HTML file and exit.")
    parser.add_argument("--info", action="store_true", help="Print the recording's length and frames as JSON, exit.")
    return parser


def main(argv: list[str] | None = None) -> int:
    return exit_on_usage_error(lambda: _main(argv))


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.html is not None:
        check_writable(args.html.absolute().parent, "--html")
    info = summarize(args.recording)
    if args.info:
        print(json.dumps(info.__dict__))
        return 0
    if args.html is not None:
        args.html = prepare_output_file(args.html, "--html")
        write_html(args.recording, args.html)
        print(f"[go2] wrote {args.html} ({args.html.stat().st_size / 1e6:.1f} MB): open it in a browser, or share it")
        return 0
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port {args.port}: accepted are 0..65535")
    server, url = serve(args.recording, args.port, args.bind)
    print(f"[go2] {args.recording}: {info.duration_s:.1f} s, {info.frames} frames")
    print(f"[go2] open {url}  (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        shutil.rmtree(server.folder, ignore_errors=True)
    return 0
