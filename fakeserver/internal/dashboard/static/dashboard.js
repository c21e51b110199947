// The dashboard's one script: it keeps the page current. Every second it asks
// /_fake/ui/state for the fake's version; when that differs from the page's, it fetches the
// page again and swaps in its <main>. Nothing here builds HTML from data: the new <main> is
// the server's own escaped rendering, parsed by DOMParser (whose scripts never run).
"use strict";
(function () {
  const body = document.body;
  const clock = document.getElementById("clock");
  let busy = false;
  let failures = 0;

  async function refresh() {
    const page = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!page.ok) return false;
    const doc = new DOMParser().parseFromString(await page.text(), "text/html");
    const main = doc.getElementById("main");
    const here = document.getElementById("main");
    if (!main || !here) return false;
    // A playing <audio> would stop and a half-typed filter be lost: wait until neither is.
    if ([...here.querySelectorAll("audio")].some((a) => !a.paused)) return false;
    const active = document.activeElement;
    if (active && here.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) return false;
    here.replaceWith(document.importNode(main, true));
    body.dataset.version = doc.body.dataset.version;
    document.dispatchEvent(new CustomEvent("dashboard:refreshed"));
    return true;
  }

  async function poll() {
    if (busy) return;
    busy = true;
    try {
      // The page's own state URL: its stamp covers only what this page shows.
      const res = await fetch(body.dataset.state || "/_fake/ui/state", { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (res.status === 401) {
        location.assign("/_fake/ui/login");
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      const state = await res.json();
      if (clock) {
        clock.textContent = state.now;
        clock.setAttribute("datetime", state.now);
      }
      if (state.version !== body.dataset.version) await refresh();
      failures = 0;
    } catch (e) {
      failures++;
    } finally {
      busy = false;
    }
  }

  // Back off while the fake is away (stopped, restarting): 1 s, then up to 30 s.
  function schedule() {
    setTimeout(async () => {
      await poll();
      schedule();
    }, Math.min(1000 * 2 ** failures, 30000));
  }
  schedule();
})();
