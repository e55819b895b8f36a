package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.reconstruct.ExportCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export --lmcache-lookups}: LMCache's lookup-hash log from the lookups topic's dumps, the
 * same bytes whether the topic holds version 1 or version 2 records.
 */
class LookupExportTest {
  private static List<LookupTraffic.Record> traffic;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @BeforeAll
  static void buildTraffic() {
    traffic = LookupTraffic.records();
  }

  private int export(String... args) {
    return new ExportCommand(console.fresh()).run(args);
  }

  private Path dump(String name, List<LookupTraffic.Record> records, boolean v2, List<String> tail)
      throws IOException {
    List<String> lines = new ArrayList<>();
    long offset = 0;
    for (LookupTraffic.Record r : records) {
      lines.add(r.kcat(v2, 3, offset++));
    }
    lines.addAll(tail);
    return Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
  }

  private static Path onlyFile(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      List<Path> all = files.toList();
      assertThat(all).hasSize(1);
      return all.get(0);
    }
  }

  @Test
  void shouldWriteVersion2RecordsAsTheVersion1LogByteForByte() throws IOException {
    // Given: the traffic in each version, its second chain erased at the end; a log has the
    // version 1 records left, in timestamp order
    List<String> erasure =
        traffic.stream()
            .filter(r -> r.key().contains("/c1/"))
            .map(r -> "{\"key\":\"" + r.key() + "\",\"payload\":null}")
            .toList();
    Path v1 = dump("v1.jsonl", traffic, false, erasure);
    Path v2 = dump("v2.jsonl", traffic, true, erasure);
    StringBuilder expected = new StringBuilder();
    traffic.stream()
        .filter(r -> !r.key().contains("/c1/"))
        .sorted(Comparator.comparingDouble(r -> r.v1().timestamp()))
        .forEach(r -> expected.append(r.json(false)).append('\n'));

    // When
    int fromV2 =
        export("--lmcache-lookups", dir.resolve("out2").toString(), "--file", v2.toString());
    String v2Out = console.out();
    int fromV1 =
        export("--lmcache-lookups", dir.resolve("out1").toString(), "--file", v1.toString());

    // Then
    assertThat(fromV2).as(v2Out + console.err()).isEqualTo(Command.OK);
    assertThat(fromV1).as(console.out() + console.err()).isEqualTo(Command.OK);
    Path written = onlyFile(dir.resolve("out2"));
    assertThat(written.getFileName().toString())
        .isEqualTo("lookup_hashes_20251121_044000_000000.jsonl");
    assertThat(Files.readString(written)).isEqualTo(expected.toString());
    assertThat(Files.readString(onlyFile(dir.resolve("out1")))).isEqualTo(expected.toString());
    long referring = traffic.stream().filter(r -> !r.v2().isWhole()).count();
    assertThat(v2Out)
        .isEqualTo(
            "export: "
                + v2
                + ": "
                + traffic.size()
                + " lookup records\n"
                + "  "
                + erasure.size()
                + " tombstones, "
                + erasure.size()
                + " replaced by a later record of the same key\n"
                + "  "
                + traffic.size()
                + " records of version 2 (schema_version 2); "
                + referring
                + " listed only the hashes after those of their chain's previous turn and were"
                + " all resolved from it\n"
                + "  wrote "
                + (traffic.size() - erasure.size())
                + " lookups to "
                + written
                + ": LMCache's lookup-hash log, version 1 records in timestamp order\n");
  }

  @Test
  void shouldGiveAnAnalysisOfTheLogEqualToTheAnalysisOfTheTopicsDump() throws IOException {
    // Given: the log exported from the version 2 dump
    Path v2 = dump("v2.jsonl", traffic, true, List.of());
    assertThat(export("--lmcache-lookups", dir.resolve("log").toString(), "--file", v2.toString()))
        .isEqualTo(Command.OK);
    ByteArrayOutputStream first = new ByteArrayOutputStream();
    ByteArrayOutputStream second = new ByteArrayOutputStream();
    ByteArrayOutputStream ignored = new ByteArrayOutputStream();

    // When
    int fromLog =
        new AnalyzeCommand(Terminal.captured(first, ignored))
            .run(new String[] {"--file", dir.resolve("log").toString(), "--no-opt"});
    int fromDump =
        new AnalyzeCommand(Terminal.captured(second, ignored))
            .run(new String[] {"--file", v2.toString(), "--no-opt"});

    // Then
    assertThat(fromLog).isEqualTo(Command.OK);
    assertThat(fromDump).isEqualTo(Command.OK);
    String log = first.toString(StandardCharsets.UTF_8);
    String topic = second.toString(StandardCharsets.UTF_8);
    assertThat(log.substring(log.indexOf("\n== ")))
        .isEqualTo(topic.substring(topic.indexOf("\n== ")));
  }

  @Test
  void shouldFailOnRecordsItCannotResolveUnlessAllowedAndLeaveThemOut() throws IOException {
    // Given: a dump that begins at the 20th record, inside every chain
    List<LookupTraffic.Record> late = traffic.subList(20, traffic.size());
    Path v2 = dump("late.jsonl", late, true, List.of());

    // When
    int strict = export("--lmcache-lookups", dir.resolve("a").toString(), "--file", v2.toString());
    String strictOut = console.out();
    int allowed =
        export(
            "--lmcache-lookups",
            dir.resolve("b").toString(),
            "--file",
            v2.toString(),
            "--allow-unresolved");

    // Then: both files hold exactly the lookups that resolved
    assertThat(strict).isEqualTo(Command.FAILED);
    assertThat(allowed).isEqualTo(Command.OK);
    java.util.regex.Matcher left =
        java.util.regex.Pattern.compile("\n  ([0-9,]+) records left out, unresolved")
            .matcher(strictOut);
    assertThat(left.find()).as(strictOut).isTrue();
    long unresolved = Long.parseLong(left.group(1).replace(",", ""));
    assertThat(strictOut)
        .endsWith(
            "FAILED: "
                + String.format(Locale.ROOT, "%,d", unresolved)
                + " records could not be resolved and are not in the file (--allow-unresolved"
                + " accepts that)\n");
    List<String> lines = Files.readAllLines(onlyFile(dir.resolve("a")));
    assertThat(lines).hasSize(late.size() - (int) unresolved);
    assertThat(Files.readAllLines(onlyFile(dir.resolve("b")))).isEqualTo(lines);
    List<String> v1Lines = late.stream().map(r -> r.json(false)).toList();
    assertThat(v1Lines).containsAll(lines);
  }

  @Test
  void shouldRefuseADirectoryThatAlreadyHoldsALog() throws IOException {
    // Given
    Path v2 = dump("v2.jsonl", traffic.subList(0, 5), true, List.of());
    Path out = Files.createDirectories(dir.resolve("out"));
    Files.writeString(out.resolve("lookup_hashes_20251121_000000_000000.jsonl"), "{}\n");

    // When
    int code = export("--lmcache-lookups", out.toString(), "--file", v2.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog export: --lmcache-lookups "
                + out
                + " already holds lookup_hashes_20251121_000000_000000.jsonl; a reader of the"
                + " directory would read both: give an empty or new directory\n");
  }

  @Test
  void shouldRefuseOptionsOfTheRequestExportWithLookups() {
    assertThat(export("--lmcache-lookups", "x", "--format", "mooncake")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("--format is for requests; --lmcache-lookups writes the lookups");
    assertThat(export("--format", "mooncake", "--out", "x.jsonl", "--allow-unresolved"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--allow-unresolved needs --lmcache-lookups");
    assertThat(export("--lmcache-lookups", "x", "--chain-memory", "lots")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("--chain-memory: expected a size (131072, 128KiB, 40GiB), got 'lots'");
  }

  @Test
  void shouldDescribeTheLookupLogInItsHelp() {
    // When
    int code = export("--help");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains("--lmcache-lookups DIR")
        .contains("--chain-memory SIZE")
        .contains("--allow-unresolved")
        .contains("LMCache's lookup-hash");
  }
}
