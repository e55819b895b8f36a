package io.prefixlog.tools.ui;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's turns drawn as the tree their bases make (base → turn edges), one row per turn in the
 * timeline's order, as an inline SVG: a turn that extends the latest turn of its branch stays in
 * its lane, a branch or a regeneration (a base that already has a continuation) opens a lane of its
 * own, a keyframe starts a tree. The same tree as nested lists is its text alternative.
 *
 * <p>Why server-side SVG and no script: the drawing is a function of the index alone, the content
 * security policy allows no inline script or style, and a screen reader gets the list.
 */
final class TurnTree {
  static final int ROW = 24;
  static final int LANE = 18;
  static final int PAD = 10;

  private TurnTree() {}

  /** A turn's place: its row, its lane, and its parent's row ({@code -1} for a root). */
  record Node(TurnInfo turn, int row, int lane, int parentRow) {}

  /** Places each turn (oldest first) in a lane. */
  static List<Node> layout(List<TurnInfo> turns) {
    Map<String, Integer> rowOf = new HashMap<>();
    Map<String, Integer> children = new HashMap<>();
    for (TurnInfo t : turns) {
      if (!t.keyframe()) {
        children.merge(id(t.chain(), t.baseSeq()), 1, Integer::sum);
      }
    }
    List<Node> nodes = new ArrayList<>(turns.size());
    // Per lane, the id of the turn at its end, or null when the lane is free.
    List<String> tips = new ArrayList<>();
    Map<String, Integer> laneOf = new HashMap<>();
    Map<String, Boolean> continued = new HashMap<>();
    for (int row = 0; row < turns.size(); row++) {
      TurnInfo t = turns.get(row);
      String id = id(t.chain(), t.seq());
      String parent = t.keyframe() ? null : id(t.chain(), t.baseSeq());
      Integer parentRow = parent == null ? null : rowOf.get(parent);
      int lane;
      if (parentRow != null
          && !continued.getOrDefault(parent, false)
          && parent.equals(tips.get(laneOf.get(parent)))) {
        lane = laneOf.get(parent);
        continued.put(parent, true);
      } else {
        lane = free(tips, children, rowOf, parentRow == null ? row : parentRow);
      }
      if (parent != null && parentRow != null) {
        children.merge(parent, -1, Integer::sum);
      }
      if (lane == tips.size()) {
        tips.add(id);
      } else {
        tips.set(lane, id);
      }
      laneOf.put(id, lane);
      rowOf.put(id, row);
      nodes.add(new Node(t, row, lane, parentRow == null ? -1 : parentRow));
    }
    return nodes;
  }

  /**
   * The first lane that ended above {@code fromRow} (its last turn has no turn left to place under
   * it): an edge drawn down it from there crosses no dot. Else a new lane.
   */
  private static int free(
      List<String> tips, Map<String, Integer> children, Map<String, Integer> rowOf, int fromRow) {
    for (int i = 0; i < tips.size(); i++) {
      String tip = tips.get(i);
      if (children.getOrDefault(tip, 0) <= 0 && rowOf.get(tip) < fromRow) {
        return i;
      }
    }
    return tips.size();
  }

  private static String id(String chain, long seq) {
    return chain + "/" + seq;
  }

  /** The figure: the SVG and, as its text alternative, the tree as nested lists. */
  static String html(String sessionKey, List<TurnInfo> turns) {
    List<Node> nodes = layout(turns);
    int lanes = nodes.stream().mapToInt(Node::lane).max().orElse(0) + 1;
    int branches = (int) turns.stream().filter(TurnInfo::branches).count();
    int roots = (int) turns.stream().filter(TurnInfo::keyframe).count();
    int width = PAD * 2 + lanes * LANE + 110;
    int height = PAD + nodes.size() * ROW;
    String summary =
        turns.size()
            + (turns.size() == 1 ? " turn" : " turns")
            + ", "
            + roots
            + (roots == 1 ? " keyframe" : " keyframes")
            + " (tree roots), "
            + branches
            + (branches == 1 ? " branch" : " branches")
            + " (a base that is not the turn before).";
    StringBuilder b = new StringBuilder();
    b.append(
            "<figure class=\"tree\" id=\"tree\"><figcaption id=\"tree-title\">Turn tree</figcaption>")
        .append("<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" aria-labelledby=\"tree-title tree-desc\"><desc id=\"tree-desc\">")
        .append(Html.text(summary))
        .append(" Each turn is a dot, oldest at the top; a line joins a turn to its base.")
        .append("</desc>");
    for (Node n : nodes) {
      if (n.parentRow() < 0) {
        continue;
      }
      Node p = nodes.get(n.parentRow());
      int px = x(p.lane());
      int py = y(p.row());
      int cx = x(n.lane());
      int cy = y(n.row());
      b.append("<path class=\"edge")
          .append(n.turn().branches() ? " branch" : "")
          .append("\" d=\"M")
          .append(px)
          .append(' ')
          .append(py);
      if (px != cx) {
        b.append(" L").append(cx).append(' ').append(Math.min(py + ROW, cy));
      }
      b.append(" L").append(cx).append(' ').append(cy).append("\"/>");
    }
    // The chain only when the session has more than one: one chain is the common case.
    boolean chains = turns.stream().map(TurnInfo::chain).distinct().count() > 1;
    for (Node n : nodes) {
      TurnInfo t = n.turn();
      String label = (chains ? shortChain(t.chain()) + "/" : "") + t.seq();
      b.append("<a href=\"")
          .append(SessionPages.turnUrl(sessionKey, t.chain(), t.seq()))
          .append("\"><title>turn ")
          .append(Html.text(label))
          .append(t.keyframe() ? ", keyframe" : ", delta on turn " + t.baseSeq())
          .append(t.branches() ? " (branch)" : "")
          .append("</title><circle class=\"node")
          .append(t.keyframe() ? " keyframe" : t.branches() ? " branch" : "")
          .append("\" cx=\"")
          .append(x(n.lane()))
          .append("\" cy=\"")
          .append(y(n.row()))
          .append("\" r=\"5\"/><text x=\"")
          .append(PAD + lanes * LANE + 6)
          .append("\" y=\"")
          .append(y(n.row()) + 4)
          .append("\">")
          .append(Html.text(label))
          .append(t.branches() ? " ↰ " + t.baseSeq() : "")
          .append("</text></a>");
    }
    b.append("</svg>");
    b.append("<details class=\"tree-text\"><summary>The tree as a list</summary>");
    list(b, sessionKey, nodes);
    b.append("</details></figure>");
    return b.toString();
  }

  /** Nested lists: each turn under its base, roots at the top level. */
  private static void list(StringBuilder b, String sessionKey, List<Node> nodes) {
    Map<Integer, List<Node>> under = new HashMap<>();
    List<Node> roots = new ArrayList<>();
    for (Node n : nodes) {
      if (n.parentRow() < 0) {
        roots.add(n);
      } else {
        under.computeIfAbsent(n.parentRow(), r -> new ArrayList<>()).add(n);
      }
    }
    // An explicit stack: a session of thousands of linear turns would nest that deep.
    b.append("<ul>");
    List<Object> work = new ArrayList<>();
    for (int i = roots.size() - 1; i >= 0; i--) {
      work.add(roots.get(i));
    }
    while (!work.isEmpty()) {
      Object next = work.remove(work.size() - 1);
      if (next instanceof String close) {
        b.append(close);
        continue;
      }
      Node n = (Node) next;
      TurnInfo t = n.turn();
      b.append("<li><a href=\"")
          .append(SessionPages.turnUrl(sessionKey, t.chain(), t.seq()))
          .append("\">turn ")
          .append(t.seq())
          .append("</a>")
          .append(
              t.keyframe()
                  ? " (keyframe)"
                  : t.branches() ? " (branch from turn " + t.baseSeq() + ")" : "");
      List<Node> kids = under.getOrDefault(n.row(), List.of());
      if (kids.isEmpty()) {
        b.append("</li>");
      } else {
        b.append("<ul>");
        work.add("</ul></li>");
        for (int i = kids.size() - 1; i >= 0; i--) {
          work.add(kids.get(i));
        }
      }
    }
    b.append("</ul>");
  }

  private static String shortChain(String chain) {
    return chain.length() <= 6 ? chain : chain.substring(0, 6);
  }

  private static int x(int lane) {
    return PAD + lane * LANE + LANE / 2;
  }

  private static int y(int row) {
    return PAD + row * ROW + ROW / 2 - 4;
  }
}
