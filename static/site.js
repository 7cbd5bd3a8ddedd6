// Theme toggle and copy buttons. Everything else on the page works without JavaScript.
(function () {
  "use strict";
  var root = document.documentElement;

  function systemTheme() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  var toggle = document.getElementById("theme-toggle");
  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var next = (root.dataset.theme || systemTheme()) === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
    });
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var figure = button.closest(".code-file");
    var code = figure && figure.querySelector("pre code");
    if (!code || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      var copy = code.cloneNode(true);
      copy.querySelectorAll(".ln").forEach(function (n) { n.remove(); });
      navigator.clipboard.writeText(copy.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
  });
})();
