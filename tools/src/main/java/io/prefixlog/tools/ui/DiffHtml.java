package io.prefixlog.tools.ui;

import io.prefixlog.schemas.delta.DeltaOp;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The diff of a delta against its base, rendered from the delta's own ops: an insert is {@code
 * <ins>}, a copy is the base's text, collapsed in a {@code <details>} when long (a turn usually
 * copies the whole conversation so far and adds a message).
 */
final class DiffHtml {
  /** Copies up to this many code points are shown whole. */
  static final int SHOWN_WHOLE = 400;

  /** A collapsed copy shows this many code points at each end. */
  static final int EDGE = 120;

  private DiffHtml() {}

  /** Counts of what the ops do, for the page's summary line. */
  record Stats(int copies, long copiedCodePoints, int inserts, long insertedCodePoints) {}

  static Stats stats(List<DeltaOp> ops) {
    int copies = 0;
    int inserts = 0;
    long copied = 0;
    long inserted = 0;
    for (DeltaOp op : ops) {
      if (op instanceof DeltaOp.Copy c) {
        copies++;
        copied += c.len();
      } else if (op instanceof DeltaOp.Insert i) {
        inserts++;
        inserted += i.text().codePointCount(0, i.text().length());
      }
    }
    return new Stats(copies, copied, inserts, inserted);
  }

  /**
   * Renders the ops against {@code base} (the base turn's rebuilt bytes, UTF-8: deltas are only
   * written against UTF-8 bases).
   */
  static String render(byte[] base, List<DeltaOp> ops, long baseSeq) {
    String text = new String(base, StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(text.length() + 1024);
    b.append("<div class=\"diff\" role=\"region\" aria-label=\"Diff against turn ")
        .append(baseSeq)
        .append("\">");
    // Copies mostly move forward through the base: resume from the last position.
    int cursorChar = 0;
    long cursorCodePoint = 0;
    for (DeltaOp op : ops) {
      if (op instanceof DeltaOp.Copy c) {
        if (c.from() < cursorCodePoint) {
          cursorChar = 0;
          cursorCodePoint = 0;
        }
        int start = text.offsetByCodePoints(cursorChar, (int) (c.from() - cursorCodePoint));
        int end = text.offsetByCodePoints(start, c.len());
        copy(b, text, start, end, c, baseSeq);
        cursorChar = end;
        cursorCodePoint = (long) c.from() + c.len();
      } else if (op instanceof DeltaOp.Insert i) {
        b.append("<ins>");
        Html.escapeInto(b, i.text(), 0, i.text().length());
        b.append("</ins>");
      }
    }
    return b.append("</div>").toString();
  }

  private static void copy(
      StringBuilder b, String text, int start, int end, DeltaOp.Copy c, long baseSeq) {
    String title =
        "copied from turn " + baseSeq + ", code points " + c.from() + " to " + (c.from() + c.len());
    b.append("<span class=\"copy\" title=\"").append(title).append("\">");
    if (c.len() <= SHOWN_WHOLE) {
      Html.escapeInto(b, text, start, end);
    } else {
      int headEnd = text.offsetByCodePoints(start, EDGE);
      int tailStart = text.offsetByCodePoints(end, -EDGE);
      Html.escapeInto(b, text, start, headEnd);
      b.append("<details class=\"collapsed\"><summary>… ")
          .append(Html.count(c.len() - 2L * EDGE))
          .append(" characters copied from turn ")
          .append(baseSeq)
          .append(" …</summary>");
      Html.escapeInto(b, text, headEnd, tailStart);
      b.append("</details>");
      Html.escapeInto(b, text, tailStart, end);
    }
    b.append("</span>");
  }
}
