package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChildLog4j2Test {
  @Test
  void shouldSendWarnAndAboveToStdoutWithTheWriterNamedAndExtraLinesLast() {
    assertThat(ChildLog4j2.warnToStdout("Test", "logger.x.name = x", "logger.x.level = info"))
        .isEqualTo(
            "# Written by prefixlog Test.\n"
                + "status = warn\n"
                + "shutdownHook = disable\n"
                + "appender.out.type = Console\n"
                + "appender.out.name = out\n"
                + "appender.out.immediateFlush = true\n"
                + "appender.out.layout.type = PatternLayout\n"
                + "appender.out.layout.pattern = %d{ISO8601} %-5p [%t] %c: %m%n\n"
                + "rootLogger.level = warn\n"
                + "rootLogger.appenderRef.out.ref = out\n"
                + "logger.x.name = x\n"
                + "logger.x.level = info\n");
  }
}
