package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code analyze} on version 2 lookup records: the same traffic as version 1 records gives exactly
 * the same analysis, and what cannot be resolved is counted and said, never analysed as a whole
 * list.
 */
class AnalyzeLookupVersionsTest {
  private static List<LookupTraffic.Record> traffic;

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @BeforeAll
  static void buildTraffic() {
    traffic = LookupTraffic.records();
  }

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }

  /**
   * A kcat -J dump of the records on 3 partitions, each partition in order, then the extra lines.
   */
  private Path kcatDump(
      String name, List<LookupTraffic.Record> records, boolean v2, List<String> tail)
      throws IOException {
    List<String> lines = new ArrayList<>();
    long offset = 0;
    for (LookupTraffic.Record r : records) {
      lines.add(r.kcat(v2, 3, offset++));
    }
    lines.addAll(tail);
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    return Files.write(file, lines, StandardCharsets.UTF_8);
  }

  private static long referring(List<LookupTraffic.Record> records) {
    return records.stream().filter(r -> !r.v2().isWhole()).count();
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  @Test
  void shouldAnalyseVersion2RecordsExactlyAsTheSameTrafficInVersion1() throws IOException {
    // Given: one dump per version of the same traffic, each ending with the erasure of one chain
    List<String> erasure =
        traffic.stream()
            .filter(r -> r.key().contains("/c1/"))
            .map(r -> "{\"key\":\"" + r.key() + "\",\"payload\":null}")
            .toList();
    assertThat(erasure).hasSizeGreaterThan(3);
    Path v1 = kcatDump("v1/lookups.jsonl", traffic, false, erasure);
    Path v2 = kcatDump("v2/lookups.jsonl", traffic, true, erasure);
    String[] options = {
      "--capacity", "400", "--window", "2s", "--replicas", "3", "--replica-capacity", "300"
    };

    // When
    int v1Code =
        analyze(concat("--file", v1.toString(), "--csv", dir.resolve("v1").toString(), options));
    String v1Out = console.out();
    int v2Code =
        analyze(concat("--file", v2.toString(), "--csv", dir.resolve("v2").toString(), options));
    String v2Out = console.out();

    // Then: the same report but one line, the same CSV files byte for byte
    assertThat(v1Code).as(v1Out).isEqualTo(Command.OK);
    assertThat(v2Code).as(v2Out).isEqualTo(Command.OK);
    assertThat(console.err()).isEmpty();
    String v2Line =
        "  "
            + count(traffic.size())
            + " records of version 2 (schema_version 2); "
            + count(referring(traffic))
            + " listed only the hashes after those of their chain's previous turn and were all"
            + " resolved from it\n";
    assertThat(v2Out).contains(v2Line);
    assertThat(v2Out.replace(v2Line, "").replace(dir.resolve("v2").toString(), "DIR"))
        .isEqualTo(v1Out.replace(dir.resolve("v1").toString(), "DIR"));
    assertThat(referring(traffic)).isGreaterThan(traffic.size() * 3L / 4);
    for (String csv : List.of("curve.csv", "rolling.csv", "routing.csv")) {
      assertThat(Files.readString(dir.resolve("v2").resolve(csv)))
          .as(csv)
          .isEqualTo(Files.readString(dir.resolve("v1").resolve(csv)));
    }
    assertThat(v1Out)
        .contains("  " + count(traffic.size() - erasure.size()) + " requests from")
        .contains("hash-only lookups of requests whose bodies capture sampling left out");
  }

  @Test
  void shouldCountAndLeaveOutTheRecordsOfADumpThatBeginsInsideTheirChains() throws IOException {
    // Given: the dump begins at the 20th record, inside every session's chain
    List<LookupTraffic.Record> late = traffic.subList(20, traffic.size());
    Path v2 = kcatDump("late.jsonl", late, true, List.of());
    long unresolved = unresolvedFromAMidChainStart(late);
    Set<String> seen = new java.util.HashSet<>();
    long notRead =
        late.stream()
            .filter(r -> seen.add(r.key().substring(0, r.key().lastIndexOf('/'))))
            .filter(r -> !r.v2().isWhole())
            .count();

    // When
    int code = analyze("--file", v2.toString(), "--no-opt");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(unresolved).isGreaterThan(notRead);
    assertThat(console.out())
        .contains(
            "  "
                + count(unresolved)
                + " records left out, unresolved (never read as whole lists; a chain resolves"
                + " again from its next whole record, at most 64 turns on):\n"
                + "    "
                + count(notRead)
                + ": its chain's previous turn was not read (the read began inside the chain:"
                + " retention deleted its start, or the dump began there; or that turn was erased,"
                + " or is in no file read)\n"
                + "    "
                + count(unresolved - notRead)
                + ": its chain's previous turn was unresolved too\n")
        .contains("  requests " + count(late.size() - unresolved) + ",");
    assertThat(console.err())
        .isEqualTo(
            "prefixlog analyze: "
                + count(unresolved)
                + " version 2 lookup records could not be resolved and were left out; the summary"
                + " says why\n");
  }

  @Test
  void shouldNotResolveReferringRecordsOfADumpWithoutKeys() throws IOException {
    // Given: the record values alone, one per line
    Path values =
        Files.write(dir.resolve("values.jsonl"), traffic.stream().map(r -> r.json(true)).toList());

    // When
    int code = analyze("--file", values.toString(), "--no-opt");

    // Then: only the whole records are analysed
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "    "
                + count(referring(traffic))
                + ": it refers to a previous turn, but its key names no turn (a dump of record"
                + " values has no keys: dump the topic with kcat -J to keep them)\n")
        .contains("  requests " + count(traffic.size() - referring(traffic)) + ",");
  }

  @Test
  void shouldSayWhenTheMemoryBoundLetChainsGo() throws IOException {
    // Given: room for none of the agent sessions' later lists (about 2,000 hashes, 16 KiB, each)
    Path v2 = kcatDump("v2.jsonl", traffic, true, List.of());

    // When
    int code = analyze("--file", v2.toString(), "--no-opt", "--chain-memory", "16KiB");

    // Then: every record is either analysed or left out, and why is said
    assertThat(code).isEqualTo(Command.OK);
    Matcher left =
        Pattern.compile("\n  ([0-9,]+) records left out, unresolved").matcher(console.out());
    Matcher analysed = Pattern.compile("\n  requests ([0-9,]+),").matcher(console.out());
    assertThat(left.find()).as(console.out()).isTrue();
    assertThat(analysed.find()).isTrue();
    assertThat(number(left.group(1)) + number(analysed.group(1))).isEqualTo(traffic.size());
    assertThat(console.out())
        .containsPattern(
            "\n    [0-9,]+: the memory bound let its chain's previous list go \\(raise"
                + " --chain-memory\\)\n")
        .containsPattern(
            "\n  the memory bound \\(--chain-memory\\) let a chain's list go [0-9,]+ times\n");
  }

  private static long number(String text) {
    return Long.parseLong(text.replace(",", ""));
  }

  /**
   * Records a reader that starts with {@code records} cannot resolve: up to each chain's next whole
   * one.
   */
  private static long unresolvedFromAMidChainStart(List<LookupTraffic.Record> records) {
    Set<String> synced = new java.util.HashSet<>();
    long unresolved = 0;
    for (LookupTraffic.Record r : records) {
      String chain = r.key().substring(0, r.key().lastIndexOf('/'));
      if (r.v2().isWhole()) {
        synced.add(chain);
      } else if (!synced.contains(chain)) {
        unresolved++;
      }
    }
    return unresolved;
  }

  private static String[] concat(String a, String b, String c, String d, String[] rest) {
    return Stream.concat(Stream.of(a, b, c, d), Stream.of(rest)).toArray(String[]::new);
  }
}
