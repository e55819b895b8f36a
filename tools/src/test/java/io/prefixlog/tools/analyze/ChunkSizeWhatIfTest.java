package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.reconstruct.CaptureInput;
import io.prefixlog.tools.reconstruct.DeltaDump;
import io.prefixlog.tools.replay.ReplayEvents;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkSizeWhatIfTest {
  static final Path TOKENIZER =
      Path.of("src/test/resources/io/prefixlog/tools/analyze/byte-bpe-tokenizer.json");

  private static final String[] SYSTEMS = {
    "You are a careful assistant for an airline. Policy: " + "refunds need a reason. ".repeat(30),
    "You are a terse coding assistant. Rules: " + "answer in code. ".repeat(45)
  };

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @BeforeAll
  static void djlCacheInTarget() {
    PromptTokenizerTest.djlCacheInTarget();
  }

  /** One turn of the capture, as written. */
  private record Turn(String session, long seq, long ts, String model, byte[] body) {}

  /**
   * Seven sessions over two system prompts and two models, four turns each, every turn appending to
   * the previous one, their times interleaved; as keyframes and deltas in a kcat -J dump.
   */
  private List<Turn> capture() {
    List<Turn> turns = new ArrayList<>();
    for (int s = 0; s < 7; s++) {
      String session = "s" + s;
      String model = s == 6 ? "other-model" : "m";
      List<String> messages = new ArrayList<>(List.of("system", SYSTEMS[s % 2]));
      for (int t = 0; t < 4; t++) {
        messages.add("user");
        messages.add("Question " + t + " of session " + s + ": " + "why? ".repeat(3 + s * t));
        turns.add(
            new Turn(
                session, t + 1, 1_700_000_000_000L + t * 1000 + s * 37, model, chat(messages)));
        messages.add("assistant");
        messages.add("Because " + "it is so. ".repeat(5 + t));
      }
    }
    return turns;
  }

  private Path dump(List<Turn> turns) throws Exception {
    List<String> lines = new ArrayList<>();
    long offset = 0;
    for (int i = 0; i < turns.size(); i++) {
      Turn turn = turns.get(i);
      var record =
          turn.seq() == 1
              ? DeltaDump.keyframe(turn.session(), 1, turn.body())
              : DeltaDump.delta(
                  turn.session(), turn.seq(), turn.seq() - 1, turns.get(i - 1).body(), turn.body());
      lines.add(
          DeltaDump.envelope(
              turn.session() + "/" + turn.seq(),
              DeltaDump.at(record, turn.ts(), turn.model()),
              offset++));
    }
    Path file = dir.resolve("deltas.jsonl");
    Files.write(file, lines);
    return file;
  }

  @Test
  void shouldGiveEachSizeTheCurveOfANaiveLruAtEveryCapacity() throws Exception {
    // Given
    List<Turn> turns = capture();
    Path dump = dump(turns);

    // When
    int code =
        analyze(
            "--chunk-sizes",
            "1000,32,256",
            "--deltas-file",
            dump.toString(),
            "--csv",
            dir.toString(),
            "--png",
            dir.toString(),
            "--kv-bytes-per-token",
            "128KiB");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    String summary = console.out();
    assertThat(summary)
        .contains("turns 28: 28 rebuilt and checked, 0 erased (left out), 0 failed their check")
        .contains("28 turns re-chunked (28 chat, 0 completion, 0 raw bodies")
        .contains(
            "KV bytes per chunk: chunk size x 32.0 KiB (--kv-bytes-per-token 128 KiB, at 4"
                + " bytes a token)");
    assertThat(dir.resolve(ChunkSizeChart.FILE)).isNotEmptyFile();
    int rows = checkAgainstNaive(turns, dir.resolve(ChunkSizeWhatIf.CSV), null);
    assertThat(rows).isGreaterThan(3 * 20);
  }

  @Test
  void shouldCountTokensAsVllmBlocksDoWithATokenizer() throws Exception {
    // Given
    List<Turn> turns = capture();
    Path dump = dump(turns);

    // When
    int code =
        analyze(
            "--chunk-sizes",
            "16,64",
            "--tokenizer",
            TOKENIZER.toString(),
            "--deltas-file",
            dump.toString(),
            "--csv",
            dir.toString());

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out()).contains("chunks of tokens of the tokenized rendering");
    try (PromptTokenizer tokenizer = PromptTokenizer.load(TOKENIZER)) {
      assertThat(checkAgainstNaive(turns, dir.resolve(ChunkSizeWhatIf.CSV), tokenizer))
          .isGreaterThan(2 * 20);
    }
  }

  @Test
  void shouldHashTheStreamAppsDefaultSizeAsItsLookupRecordsDo() throws Exception {
    // Given: the stream app's chunk size, and its lookup record of every body (ChunkLookups is
    // what its ChunkLookupProcessor calls)
    int size = (int) (long) StreamAppConfig.CHUNK_SIZE_BYTES.defaultValue();
    List<Turn> turns = capture();
    ChunkSizeWhatIf whatIf =
        new ChunkSizeWhatIf(new ChunkSizeWhatIf.Plan(new int[] {64, size}, false, 0), null);

    // When
    CaptureInput.dump(dump(turns))
        .rebuild(
            whatIf,
            Terminal.captured(new ByteArrayOutputStream(), new ByteArrayOutputStream()),
            false);
    List<LookupRequest> requests = whatIf.requests(1);

    // Then
    List<Turn> ordered = new ArrayList<>(turns);
    ordered.sort(Comparator.comparingLong(Turn::ts));
    assertThat(requests).hasSize(ordered.size());
    for (int i = 0; i < ordered.size(); i++) {
      Turn turn = ordered.get(i);
      var record = new ChunkLookups(size).of(event(turn), turn.body());
      assertThat(io.prefixlog.core.chunk.ChunkHasher.hex(requests.get(i).chunkKeys()))
          .isEqualTo(record.chunkHashes());
      assertThat(requests.get(i).seqLen()).isEqualTo(record.seqLen());
      assertThat(requests.get(i).timestampMs()).isEqualTo(turn.ts());
    }
  }

  /**
   * Every row of chunk-sizes.csv against a direct LRU simulation (one per model at the row's
   * capacity, all models summed) over lookups computed here from the original bodies: byte chunks
   * with ChunkLookups, token chunks with an independent SHA-256 chain over the ids.
   *
   * @return rows checked
   */
  private static int checkAgainstNaive(List<Turn> turns, Path csv, PromptTokenizer tokenizer)
      throws Exception {
    List<Turn> ordered = new ArrayList<>(turns);
    ordered.sort(Comparator.comparingLong(Turn::ts));
    List<String> lines = Files.readAllLines(csv);
    assertThat(lines.get(0)).isEqualTo(ChunkSizeWhatIf.CSV_HEADER);
    Map<Integer, List<long[]>> keysBySize = new HashMap<>();
    Map<Integer, List<Long>> lengthsBySize = new HashMap<>();
    int checked = 0;
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      int size = Integer.parseInt(f[0]);
      long chunks = Long.parseLong(f[3]);
      if (!keysBySize.containsKey(size)) {
        List<long[]> keys = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        for (Turn turn : ordered) {
          if (tokenizer == null) {
            var record = new ChunkLookups(size).of(event(turn), turn.body());
            keys.add(
                record.chunkHashes().stream()
                    .mapToLong(h -> Long.parseUnsignedLong(h.substring(2), 16))
                    .toArray());
            lengths.add(record.seqLen());
          } else {
            long[] ids =
                tokenizer.ids(
                    new String(PromptRenderer.render(turn.body()).bytes(), StandardCharsets.UTF_8));
            keys.add(tokenChain(ids, size));
            lengths.add((long) ids.length);
          }
        }
        keysBySize.put(size, keys);
        lengthsBySize.put(size, lengths);
      }
      Map<String, NaiveLru> caches = new HashMap<>();
      List<long[]> keys = keysBySize.get(size);
      for (int i = 0; i < ordered.size(); i++) {
        caches
            .computeIfAbsent(ordered.get(i).model(), m -> new NaiveLru(chunks))
            .accept(keys.get(i), 0, keys.get(i).length, size, lengthsBySize.get(size).get(i));
      }
      long unitHits = 0;
      long units = 0;
      long hits = 0;
      long accesses = 0;
      for (NaiveLru lru : caches.values()) {
        unitHits += lru.unitHits(Semantics.PREFIX);
        units += lru.units();
        hits += lru.hits(Semantics.PREFIX);
        accesses += lru.accesses();
      }
      assertThat(f[5])
          .as("%s prefix units at %d chunks", size, chunks)
          .isEqualTo(
              String.format(Locale.ROOT, "%.6f", chunks == 0 ? 0 : (double) unitHits / units));
      assertThat(f[6])
          .as("%s prefix chunks at %d chunks", size, chunks)
          .isEqualTo(
              String.format(Locale.ROOT, "%.6f", chunks == 0 ? 0 : (double) hits / accesses));
      checked++;
    }
    // The curves are not flat: some capacity hits and some misses, so the comparison says
    // something.
    assertThat(lines.stream().skip(1).map(l -> l.split(",")[5]).distinct().count())
        .isGreaterThan(5);
    return checked;
  }

  private static long[] tokenChain(long[] ids, int n) throws Exception {
    long[] out = new long[ids.length / n];
    long parent = 0;
    for (int i = 0; i < out.length; i++) {
      ByteBuffer input = ByteBuffer.allocate(8 + 4 * n).putLong(parent);
      for (int j = 0; j < n; j++) {
        input.putInt((int) ids[i * n + j]);
      }
      parent =
          ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(input.array())).getLong();
      out[i] = parent;
    }
    return out;
  }

  private static RawRequestEvent event(Turn turn) {
    return ReplayEvents.chatCompletion(
        "req",
        turn.ts(),
        new SessionKey(turn.session(), "header:x-session-id"),
        "127.0.0.1",
        "t",
        Map.of(),
        turn.model(),
        turn.body(),
        null);
  }

  private static byte[] chat(List<String> messages) {
    StringBuilder s = new StringBuilder("{\"model\":\"m\",\"messages\":[");
    for (int i = 0; i < messages.size(); i += 2) {
      s.append(i > 0 ? "," : "")
          .append("{\"role\":\"")
          .append(messages.get(i))
          .append("\",\"content\":\"")
          .append(messages.get(i + 1))
          .append("\"}");
    }
    return s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }
}
