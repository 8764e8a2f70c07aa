"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages separated by NUL bytes, Chromium reading fd 3 and writing fd 4), so a test can load a
page, run script in it and take a screenshot with nothing but the browser installed."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _above(fd: int, low: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, exe: str, width: int = 1400, height: int = 1000):
        self.profile = tempfile.mkdtemp(prefix="ptorewrite-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        to_chrome_r, from_chrome_w = (_above(to_chrome_r, 10), _above(from_chrome_w, 10))
        # Chromium reads fd 3 and writes fd 4. Our ends sit above 4 (so neither is overwritten
        # by the other's move) and are not inherited; the copies made in the child are.
        args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "about:blank"]

        def to_3_and_4():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        # The child only moves two descriptors before exec (no locks taken).
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=to_3_and_4)  # noqa: PLW1509
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _read(self, timeout: float) -> dict:
        end = time.monotonic() + timeout
        while b"\0" not in self._buf:
            if time.monotonic() > end:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, timeout: float = 30, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session is not None:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            got = self._read(timeout)
            if got.get("id") == self._id:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})

    def open(self, path: Path) -> None:
        self.call("Page.navigate", url=path.resolve().as_uri())
        for _ in range(100):
            if self.eval("document.readyState") == "complete":
                return
            time.sleep(0.1)
        raise TimeoutError("page did not load")

    def eval(self, expr: str):
        got = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expr}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.session = None  # Browser.close is a browser-level command
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):  # it may already be gone
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._r)
        os.close(self._w)
        shutil.rmtree(self.profile, ignore_errors=True)
