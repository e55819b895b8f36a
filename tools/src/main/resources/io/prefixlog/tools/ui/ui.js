// prefixlog ui: the only script. Copy buttons; everything else works without it.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button.copy-button");
  if (!button) {
    return;
  }
  const text = document.getElementById(button.dataset.copy).textContent;
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch (e) {
    // Not a secure context (a token-protected UI on another host over http): select the command
    // so that Ctrl-C copies it.
    const range = document.createRange();
    range.selectNodeContents(document.getElementById(button.dataset.copy));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  button.textContent = ok ? "Copied" : "Selected: press Ctrl-C";
  setTimeout(() => { button.textContent = "Copy"; }, 2000);
});
