(function () {
  "use strict";
  // The one interactive part of the page: show failing cases only. Without scripts the toggle
  // stays hidden and every case is shown.
  var box = document.getElementById("only-failures");
  var label = document.getElementById("filter");
  if (!box || !label) { return; }
  label.hidden = false;
  function apply() { document.body.classList.toggle("only-failures", box.checked); }
  box.addEventListener("change", apply);
  apply();
})();
