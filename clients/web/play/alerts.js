// Saying "your turn" beyond the page: the tab title (render.js), an optional beep (WebAudio,
// off until switched on) and a browser notification when the tab is hidden (only once the
// person has asked for them and the browser allowed it). Both choices are kept per browser.

import { t } from "./i18n.js";
import { $, S } from "./state.js";

const SOUND = "manhattan.sound";
const NOTIFY = "manhattan.notify";
let audio = null;

export function setUpAlerts() {
  const sound = $("sound");
  sound.checked = localStorage.getItem(SOUND) === "on";
  sound.addEventListener("change", () => {
    localStorage.setItem(SOUND, sound.checked ? "on" : "off");
    if (sound.checked) beep(); // the click allows audio, and says what it will sound like
  });
  const notify = $("notify");
  notify.checked = localStorage.getItem(NOTIFY) === "on" && window.Notification?.permission === "granted";
  notify.disabled = !("Notification" in window);
  notify.addEventListener("change", async () => {
    if (notify.checked && Notification.permission !== "granted") {
      notify.checked = (await Notification.requestPermission()) === "granted";
    }
    localStorage.setItem(NOTIFY, notify.checked ? "on" : "off");
  });
}

function beep() {
  audio ??= new AudioContext();
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.frequency.value = 880;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + 0.25);
}

// The turn has just come to this seat.
export function yourTurn() {
  if ($("sound").checked) beep();
  if ($("notify").checked && document.hidden && window.Notification?.permission === "granted") {
    new Notification(t("title.yourTurn"), { body: S.table?.name ?? "Manhattan", tag: `manhattan-${S.tableId}` });
  }
}
