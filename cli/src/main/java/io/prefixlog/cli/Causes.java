package io.prefixlog.cli;

import java.util.ArrayList;
import java.util.List;

/** Exception chains as one line for a user: "Failed to construct kafka consumer" says little. */
public final class Causes {
  private Causes() {}

  /**
   * The messages of the exception and its causes, outermost first, joined by {@code ": "}; a
   * message that repeats its cause's is left out.
   */
  public static String describe(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable t = e; t != null && parts.size() < 8; t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (parts.isEmpty() || !parts.get(parts.size() - 1).contains(message)) {
        parts.add(message);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return String.join(": ", parts);
  }
}
