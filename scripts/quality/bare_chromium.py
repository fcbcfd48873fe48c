"""Chromium driven over its DevTools pipe with no domain enabled, for measuring memory as a reader's
browser holds it.

Playwright enables DevTools' Network domain on every page, and Chromium then keeps a copy of the
response bodies in the renderer (its inspector's buffer, for Network.getResponseBody): measured, every
one of the real model's 19.6 MB chunk files, 130 MB that no reader's browser holds. This driver only attaches
to the page and evaluates scripts (Runtime.evaluate needs no domain enabled), so the renderers' memory
is the page's own.

    with BareChromium(chromium, profile, url) as b:
        b.evaluate("async ([a, b]) => ...", [1, 2])  # a function's source and its argument, as Playwright's
"""
from __future__ import annotations

import json
import os
import subprocess
import time


class BareChromium:
    def __init__(self, chromium: str, profile: str, url: str):
        cmd_r, self._cmd = os.pipe()  # Chromium reads commands on its fd 3 and answers on its fd 4
        self._res, res_w = os.pipe()
        args = [chromium, "--headless", "--no-sandbox", "--remote-debugging-pipe", f"--user-data-dir={profile}", url]
        self.proc = subprocess.Popen(["sh", "-c", f'exec "$@" 3<&{cmd_r} 4>&{res_w}', "sh", *args], pass_fds=(cmd_r, res_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(res_w)
        self._id, self._buf, self.session = 0, b"", None
        try:
            deadline = time.time() + 60
            while self.session is None:
                pages = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "page"]
                if pages:
                    self.session = self.send("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})["sessionId"]
                elif time.time() > deadline:
                    raise RuntimeError(f"chromium opened no page at {url}")
                else:
                    time.sleep(0.2)
            while self.evaluate("() => document.readyState === 'complete' && location.href") != url:
                if time.time() > deadline:
                    raise RuntimeError(f"chromium did not load {url}")
                time.sleep(0.2)
        except BaseException:
            self.close()
            raise

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                data = os.read(self._res, 1 << 20)
                if not data:
                    raise RuntimeError(f"chromium closed its DevTools pipe during {method}")
                self._buf += data
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:  # events and other replies are not waited for
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply["result"]

    def evaluate(self, fn: str, arg=None):
        """The value of fn(arg) in the page (awaited), as Playwright's page.evaluate gives it."""
        got = self.send("Runtime.evaluate", {"expression": f"({fn})({json.dumps(arg)})", "awaitPromise": True,
                                             "returnByValue": True}, self.session)
        if "exceptionDetails" in got:
            raise RuntimeError(got["exceptionDetails"].get("exception", {}).get("description") or got["exceptionDetails"]["text"])
        return got["result"].get("value")

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd)
        os.close(self._res)

    def __enter__(self) -> "BareChromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
