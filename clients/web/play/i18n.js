// The page's words: one catalogue per language (i18n/en.js, i18n/fr.js, the rulebooks'
// languages), chosen from the browser's language unless the person picked one on the page.
// A catalogue entry is a text with {name} slots, or a function of the slots (plurals).

import en from "./i18n/en.js";
import fr from "./i18n/fr.js";

export const CATALOGUES = { en, fr };
export const LANGUAGES = { en: "English", fr: "Français" };
const STORED = "manhattan.lang";

function chosen() {
  const stored = localStorage.getItem(STORED);
  if (stored && stored in CATALOGUES) return stored;
  const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  return browser in CATALOGUES ? browser : "en";
}

export const lang = chosen();

export function setLanguage(code) {
  localStorage.setItem(STORED, code);
  location.reload(); // every text on the page, the log's new lines too, in the new language
}

// Whether the catalogues have a text for `key` (an error code's, say).
export const known = (key) => key in en;

// t("key", {slot: value}): the text in the page's language (English if a key is missing).
export function t(key, slots = {}) {
  const entry = CATALOGUES[lang][key] ?? en[key];
  if (entry === undefined) return key;
  if (typeof entry === "function") return entry(slots);
  return entry.replace(/\{(\w+)\}/g, (_, k) => String(slots[k] ?? ""));
}

// The static page: data-i18n (text), data-i18n-placeholder, data-i18n-label (aria-label).
export function translatePage(root = document) {
  document.documentElement.lang = lang;
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
}
