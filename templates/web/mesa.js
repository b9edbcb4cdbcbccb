// The table page's live updates: the board follows the room's stream (vivo.js).
"use strict";
(function () {
  var board = document.getElementById("mesa");
  if (!board || !window.EventSource) {
    return;
  }
  liveStream.follow(board.getAttribute("data-eventos"), "mesa", board);
  document.body.setAttribute("data-vivo", "");
})();
