"""What the browser tests measure in a graph's frame, shared by the lab's and the views' tests."""

from __future__ import annotations

LEGIBLE_PX = 9  # the smallest rendered node label (font size x network scale) a reader can read

# In a graph's frame: the rendered size of each shown node label, and each shown edge that passes
# over a shown node it does not join (vis-network's positions, shapes and curves).
READABILITY = """() => {
  const body = network.body, scale = network.getScale();
  const ids = body.nodeIndices;
  const labels = ids.map(id => body.nodes[id].labelModule.fontOptions.size * scale);
  const shape = {};
  ids.forEach(id => {
    const n = body.nodes[id];
    const dot = ["dot", "circle"].includes(n.options.shape);
    shape[id] = {x: n.x, y: n.y, dot: dot, r: n.options.size,
                 w: n.shape.width / 2, h: n.shape.height / 2};
  });
  const through = [];
  body.edgeIndices.forEach(eid => {
    const e = body.edges[eid];
    for (let step = 0; step <= 100; step++) {
      const p = e.edgeType.getPoint(step / 100);
      const hit = ids.find(id => {
        if (id === e.fromId || id === e.toId) { return false; }
        const s = shape[id];
        return s.dot ? Math.hypot(p.x - s.x, p.y - s.y) < s.r
                     : Math.abs(p.x - s.x) < s.w && Math.abs(p.y - s.y) < s.h;
      });
      if (hit !== undefined) { through.push([e.fromId, e.toId, hit]); return; }
    }
  });
  return {scale: scale, nodes: ids.length, edges: body.edgeIndices.length,
          smallest: Math.min(...labels), through: through};
}"""
