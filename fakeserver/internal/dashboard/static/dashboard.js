// The dashboard's one script: it keeps the page current without losing your place. Every
// second it asks /_fake/ui/state for the fake's version; when that differs from the page's, it
// fetches the page again and, only when the new <main> differs from the last one received,
// brings the page's <main> up to it node by node: what did not change is not touched, so an
// open <details>, the scroll position, a text selection and focus stay as they were. Nothing
// here builds HTML from data: the new <main> is the server's own escaped rendering, parsed by
// DOMParser (whose scripts never run). A page opts in with data-live on its <main> (the layout
// sets it); see "How a page takes part" below. The switch in the header pauses updates.
//
// How a page takes part:
//   - data-live on <main id="main"> turns updates on; without it the script only shows the clock.
//   - An element with an id, data-id or data-live-key keeps its identity when its siblings
//     change (a new row at the top does not reset the rows below); give every <details> one.
//   - The open state of a <details> belongs to the reader once the page is shown: updates never
//     open or close one.
//   - data-live-keep on an element leaves it and everything in it alone.
"use strict";
(function () {
  const body = document.body;
  const clock = document.getElementById("clock");
  const toggle = document.getElementById("live-toggle");
  const pausedKey = "podqa-dashboard-paused";
  let busy = false;
  let failures = 0;
  let lastMain = null; // the outerHTML of the last <main> received, to skip unchanged pages
  let paused = false;
  try {
    paused = sessionStorage.getItem(pausedKey) === "1";
  } catch (e) {
    paused = false;
  }

  function showToggle() {
    if (!toggle) return;
    toggle.hidden = false;
    toggle.setAttribute("aria-pressed", paused ? "true" : "false");
    toggle.textContent = paused ? "Resume live updates" : "Pause live updates";
    body.dataset.livePaused = paused ? "true" : "false";
  }
  if (toggle) {
    toggle.addEventListener("click", () => {
      paused = !paused;
      try {
        sessionStorage.setItem(pausedKey, paused ? "1" : "0");
      } catch (e) {
        // A browser without storage still pauses this page.
      }
      showToggle();
      if (!paused) poll();
    });
  }
  showToggle();

  function keyOf(node) {
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    return node.id || node.getAttribute("data-live-key") || node.getAttribute("data-id") || null;
  }

  // ownedAttr says which attributes belong to the reader rather than the server.
  function ownedAttr(el, name) {
    if (el.tagName === "DETAILS" && name === "open") return true;
    if (/^(INPUT|SELECT|TEXTAREA|OPTION)$/.test(el.tagName) && (name === "value" || name === "checked" || name === "selected")) return true;
    return false;
  }

  function sameKind(a, b) {
    return a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
  }

  // morph brings live up to next (same kind), touching only what differs.
  function morph(live, next) {
    if (live.nodeType === Node.TEXT_NODE || live.nodeType === Node.COMMENT_NODE) {
      if (live.data !== next.data) live.data = next.data;
      return;
    }
    if (live.nodeType !== Node.ELEMENT_NODE) return;
    if (live.hasAttribute("data-live-keep")) return;
    if (live === document.activeElement && /^(INPUT|SELECT|TEXTAREA)$/.test(live.tagName)) return;
    for (const a of [...live.attributes]) {
      if (!next.hasAttribute(a.name) && !ownedAttr(live, a.name)) live.removeAttribute(a.name);
    }
    for (const a of [...next.attributes]) {
      if (live.getAttribute(a.name) !== a.value && !ownedAttr(live, a.name)) live.setAttribute(a.name, a.value);
    }
    if (live.tagName === "AUDIO" && !live.paused) return;
    const keyed = new Map();
    for (const c of live.childNodes) {
      const k = keyOf(c);
      if (k !== null) keyed.set(k, c);
    }
    let i = 0;
    for (const want of [...next.childNodes]) {
      const here = live.childNodes[i] || null;
      const k = keyOf(want);
      let match = null;
      if (k !== null) {
        const c = keyed.get(k);
        if (c && c.nodeName === want.nodeName) match = c;
      } else if (here && keyOf(here) === null && sameKind(here, want)) {
        match = here;
      }
      if (match) {
        if (match !== here) live.insertBefore(match, here);
        morph(match, want);
      } else {
        live.insertBefore(document.importNode(want, true), here);
      }
      i++;
    }
    while (live.childNodes.length > i) live.removeChild(live.lastChild);
  }

  async function refresh() {
    const page = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!page.ok) return false;
    const doc = new DOMParser().parseFromString(await page.text(), "text/html");
    const main = doc.getElementById("main");
    const here = document.getElementById("main");
    if (!main || !here) return false;
    body.dataset.version = doc.body.dataset.version;
    const html = main.outerHTML;
    const changed = html !== lastMain;
    if (changed) {
      morph(here, main);
      lastMain = html;
    }
    document.dispatchEvent(new CustomEvent("dashboard:checked", { detail: { changed } }));
    if (changed) document.dispatchEvent(new CustomEvent("dashboard:refreshed"));
    return changed;
  }

  async function poll() {
    if (busy || paused) return;
    busy = true;
    try {
      // The page's own state URL: its stamp covers only what this page shows.
      const res = await fetch(body.dataset.state || "/_fake/ui/state", { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (res.status === 401) {
        location.assign("/_fake/ui/login?next=" + encodeURIComponent(location.pathname + location.search));
        return;
      }
      if (!res.ok) throw new Error(String(res.status));
      const state = await res.json();
      if (clock) {
        clock.textContent = state.now;
        clock.setAttribute("datetime", state.now);
      }
      const live = document.getElementById("main");
      if (live && live.hasAttribute("data-live") && state.version !== body.dataset.version) await refresh();
      failures = 0;
    } catch (e) {
      failures++;
    } finally {
      busy = false;
    }
  }

  // The <main> the page came with is the first one received: a fetch that brings the same
  // rendering changes nothing.
  const first = document.getElementById("main");
  if (first) lastMain = first.outerHTML;

  // Back off while the fake is away (stopped, restarting): 1 s, then up to 30 s.
  function schedule() {
    setTimeout(async () => {
      await poll();
      schedule();
    }, Math.min(1000 * 2 ** failures, 30000));
  }
  schedule();
})();
