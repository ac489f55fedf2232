// Small DOM helpers. Everything user-supplied reaches the page through
// textContent or attributes, never innerHTML.

export const $ = (id) => document.getElementById(id);

/** Element builder: h("td", {class: "n", title: "..."}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** The data attribute (camelCase) of `button` that is one of `fields`' keys, if any. */
const fieldOf = (button, fields) => Object.keys(fields).find((k) => k in button.dataset);

/**
 * Radio buttons (role="radio") under `root` that each set a field of `state`: `fields`
 * maps a button's data attribute (camelCase) to the field it sets to that attribute's
 * value. A click sets it and calls `onPick`; `markRadios` shows the chosen buttons.
 */
export function wireRadios(root, fields, state, onPick) {
  for (const button of root.querySelectorAll("[role=radio]")) {
    const key = fieldOf(button, fields);
    if (!key) continue;
    button.addEventListener("click", () => {
      state[fields[key]] = button.dataset[key];
      onPick();
    });
  }
}

export function markRadios(root, fields, state) {
  for (const button of root.querySelectorAll("[role=radio]")) {
    const key = fieldOf(button, fields);
    if (key) button.setAttribute("aria-checked", String(button.dataset[key] === state[fields[key]]));
  }
}

export function setText(el, text) {
  const value = text === undefined || text === null ? "" : String(text);
  if (el.textContent !== value) el.textContent = value;
}

export function show(el, visible) {
  if (el.hidden === !visible) return;
  el.hidden = !visible;
}

/** Brief message at the bottom of the screen (errors from the server, copy confirmations). */
export function toast(message, kind = "error", ms = 4500, key = null) {
  const box = $("toasts");
  if (key) {
    const existing = box.querySelector(`[data-key="${key}"]`);
    if (existing) {
      existing.textContent = message;
      clearTimeout(existing.timer);
      existing.timer = setTimeout(() => existing.remove(), ms);
      return;
    }
  }
  const item = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status", dataset: key ? { key } : {} }, message);
  box.append(item);
  while (box.children.length > 4) box.firstElementChild.remove();
  item.timer = setTimeout(() => item.remove(), ms);
}

export function formatCount(n) {
  if (n === null || n === undefined) return "–";
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return String(Math.round(n));
}

export function formatBytes(n) {
  if (n === null || n === undefined) return "–";
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(0)} KiB`;
  return `${n} B`;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms >= 60000) return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.round(ms)} ms`;
}

export function isTyping(event) {
  const t = event.target;
  if (!(t instanceof HTMLElement)) return false;
  return t.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(t.tagName);
}
