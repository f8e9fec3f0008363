// A section marked data-keep-typing comes back from the server as it rendered it when an htmx
// refresh of it lands. A control changed while that refresh was in flight would show the
// server's value again, and the refresh its change asked for (which htmx sends once the first
// has landed) would read that value: what was typed would be lost. So: note each control's
// value as a refresh is sent; as it lands, a control whose value moved since gets that value
// back, if the server left the control as it was sent, and asks for its own refresh (at once,
// or when it loses the focus if it has it).
(() => {
  let sent = null; // control id -> value, for the refresh in flight
  let typed = []; // [id, value now, value sent] of the controls changed during the flight

  const valueOf = (control) =>
    control.type === "checkbox" || control.type === "radio" ? String(control.checked) : control.value;
  const setValue = (control, value) => {
    if (control.type === "checkbox" || control.type === "radio") control.checked = value === "true";
    else control.value = value;
  };
  const controls = (section) => section.querySelectorAll("input[id], select[id], textarea[id]");
  const refresh = (control) => control.dispatchEvent(new Event("change", { bubbles: true }));

  document.addEventListener("htmx:beforeRequest", (event) => {
    const section = event.detail.target;
    if (!section || !section.matches("[data-keep-typing]")) return;
    sent = new Map();
    for (const control of controls(section)) sent.set(control.id, valueOf(control));
  });
  document.addEventListener("htmx:beforeSwap", () => {
    if (!sent) return;
    typed = [];
    for (const [id, value] of sent) {
      const control = document.getElementById(id);
      if (control && valueOf(control) !== value) typed.push([id, valueOf(control), value]);
    }
    sent = null;
  });
  document.addEventListener("htmx:afterSwap", () => {
    const changed = typed;
    typed = [];
    for (const [id, value, was] of changed) {
      const control = document.getElementById(id);
      if (!control || valueOf(control) !== was) continue; // the server moved it: its value stands
      setValue(control, value);
      if (document.activeElement === control) {
        control.addEventListener("blur", () => refresh(control), { once: true });
      } else {
        refresh(control);
      }
    }
  });
})();
