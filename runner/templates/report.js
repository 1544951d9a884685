(function () {
  "use strict";
  // Without scripts every case is still listed and the toggle stays hidden; only the details of
  // cases kept in data blocks (past the first ones with details) need this script.
  var narrow = window.matchMedia("(max-width: 600px)");

  function foldRules(root) {
    // On a narrow screen a case's rule texts start folded: the diff comes first.
    if (!narrow.matches) { return; }
    root.querySelectorAll(".rules-panel details[open]").forEach(function (d) { d.open = false; });
  }

  function fill(details) {
    // The data block holds HTML this page's renderer escaped; it becomes the case's body.
    if (!details.classList.contains("lazy") || details.dataset.filled) { return; }
    var data = details.querySelector("script.body-data");
    var body = details.querySelector("[data-body]");
    if (!data || !body) { return; }
    body.innerHTML = JSON.parse(data.textContent);
    body.querySelectorAll("[data-rule]").forEach(function (text) {
      // A compact case names its rules; their texts are in the spec section of the page.
      var section = document.getElementById(text.dataset.rule);
      var source = section && section.querySelector(".rule-text");
      if (!source) { return; }
      text.replaceChildren.apply(text, Array.from(source.childNodes, function (node) {
        return node.cloneNode(true);
      }));
    });
    details.dataset.filled = "1";
    foldRules(body);
  }

  function unshelve(shelves, shelf) {
    // A shelf's cases become cards of the page where the shelf stood, so the cards keep their
    // order whichever shelf comes down first.
    var data = JSON.parse(shelf.textContent);
    var cards = document.createElement("template");
    cards.innerHTML = data.cards;
    cards.content.querySelectorAll("details.case.lazy").forEach(function (card, index) {
      // Its body travelled beside the cards; it gets the data block every lazy card has.
      var block = document.createElement("script");
      block.type = "application/json";
      block.className = "body-data";
      block.textContent = JSON.stringify(data.bodies[index]);
      card.appendChild(block);
    });
    var count = cards.content.querySelectorAll("details.case").length;
    shelf.parentNode.insertBefore(cards.content, shelf);
    shelf.remove();
    shelves.dataset.left = String(Number(shelves.dataset.left) - count);
    labelShelves(shelves);
  }

  function labelShelves(shelves) {
    var left = Number(shelves.dataset.left);
    var next = shelves.querySelector("script.shelf");
    var button = shelves.querySelector("button.show-more");
    if (!next || left <= 0) { button.parentNode.remove(); return; }
    button.textContent = "Show the next cases (" + left.toLocaleString("en") + " more)";
    button.hidden = false;
  }

  function reach(id) {
    // A case still on a shelf: its shelf comes down, and it alone.
    var needle = 'id=\\"' + id + '\\"';
    var shelves = document.querySelectorAll(".shelves");
    for (var i = 0; i < shelves.length; i++) {
      var all = shelves[i].querySelectorAll("script.shelf");
      for (var j = 0; j < all.length; j++) {
        if (all[j].textContent.indexOf(needle) !== -1) {
          unshelve(shelves[i], all[j]);
          return document.getElementById(id);
        }
      }
    }
    return null;
  }

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && (document.getElementById(id) || reach(id));
    if (target && target.tagName === "DETAILS" && !target.open) {
      target.open = true;
      target.scrollIntoView();
    }
  }

  document.querySelectorAll(".shelves").forEach(function (shelves) {
    labelShelves(shelves);
    shelves.querySelector("button.show-more").addEventListener("click", function () {
      var next = shelves.querySelector("script.shelf");
      if (next) { unshelve(shelves, next); }
    });
  });
  document.addEventListener("toggle", function (event) {
    if (event.target.open) { fill(event.target); }
  }, true);
  foldRules(document);
  document.querySelectorAll("details.lazy[open]").forEach(fill);
  window.addEventListener("hashchange", openTarget);
  openTarget();

  var box = document.getElementById("only-failures");
  var label = document.getElementById("filter");
  if (!box || !label) { return; }
  label.hidden = false;
  function apply() { document.body.classList.toggle("only-failures", box.checked); }
  box.addEventListener("change", apply);
  apply();
})();
