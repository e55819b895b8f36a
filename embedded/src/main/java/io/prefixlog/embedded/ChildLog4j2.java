package io.prefixlog.embedded;

import java.util.ArrayList;
import java.util.List;

/**
 * log4j2 configuration for a child JVM: WARN and above to stdout, which {@link ChildProcess}
 * appends to the child's log file. One file then holds both the service's log and anything the JVM
 * itself prints (a crash, a bad flag). Flushed per event, since the watchdog halts without shutdown
 * hooks.
 */
public final class ChildLog4j2 {
  private ChildLog4j2() {}

  /**
   * The properties file's text, headed {@code # Written by prefixlog <writer>.}, with {@code
   * moreLines} (other loggers' levels, say) at the end.
   */
  public static String warnToStdout(String writer, String... moreLines) {
    List<String> lines = new ArrayList<>();
    lines.add("# Written by prefixlog " + writer + ".");
    lines.add("status = warn");
    lines.add("shutdownHook = disable");
    lines.add("appender.out.type = Console");
    lines.add("appender.out.name = out");
    lines.add("appender.out.immediateFlush = true");
    lines.add("appender.out.layout.type = PatternLayout");
    lines.add("appender.out.layout.pattern = %d{ISO8601} %-5p [%t] %c: %m%n");
    lines.add("rootLogger.level = warn");
    lines.add("rootLogger.appenderRef.out.ref = out");
    lines.addAll(List.of(moreLines));
    lines.add("");
    return String.join("\n", lines);
  }
}
