// The table page's live updates: the server sends the whole board again on every change
// (Server-Sent Events); it is HTML rendered from the templates with all user text escaped.
"use strict";
(function () {
  var board = document.getElementById("mesa");
  if (!board || !window.EventSource) {
    return;
  }
  var source = new EventSource(board.getAttribute("data-eventos"));
  document.body.setAttribute("data-vivo", "");
  var notice = document.getElementById("aviso-vivo");
  source.addEventListener("mesa", function (message) {
    board.innerHTML = message.data;
    document.body.setAttribute("data-actualizada", String(Date.now()));
  });
  source.addEventListener("open", function () {
    document.body.classList.remove("sin-conexion");
    if (notice) {
      notice.hidden = false;
    }
  });
  source.addEventListener("error", function () {
    document.body.classList.add("sin-conexion");
  });
})();
