package io.prefixlog.benchmarks.response;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.luben.zstd.ZstdCompressCtx;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.CorpusRequests;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.response.ChatStreamAssembly;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Which form of a streamed answer to keep, from what each costs: the exact bytes the engine sent
 * (server-sent events) or their assembly ({@link ChatStreamAssembly}, the completion the client's
 * SDK builds). The answers are the corpora's assistant messages, streamed as vLLM streams them
 * ({@link AnswerStreams}).
 *
 * <p>Per corpus: the bytes of both forms, raw and at zstd level 3 (each answer alone, as one
 * record). Then what keeping answers adds per turn, in the form that counts in a conversation: the
 * answer to turn N comes back inside request N+1, so a kept answer can be the base that request's
 * delta copies from. Estimated with the stream app's encoder: request N+1 encoded against request N
 * (without answers), against request N followed by answer N in each form, plus that answer's own
 * zstd bytes; a delta counted as its ops' JSON at zstd level 3, a first turn as its body at zstd
 * level 3, the same in every column.
 */
public final class ResponseFormBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "ResponseFormBenchmark",
          "Bytes of streamed answers kept exact or assembled, and what keeping them adds per turn"
              + " when the next request's delta may copy from them.",
          List.of(CorpusRequests.OPTION));

  private static final String MODEL = "prefixlog-demo";

  private ResponseFormBenchmark() {}

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, ResponseFormBenchmark::conversations, ResponseFormBenchmark::run);
  }

  private static int conversations(CommandLine line) throws UsageException {
    return CorpusRequests.conversations(line);
  }

  /** The sums of one corpus file, in bytes. */
  private static final class Tally {
    long answers;
    long exact;
    long assembled;
    long exactZstd;
    long assembledZstd;
    long turnsWithout;
    long turnsWithAssembled;
    long turnsWithExact;
    long turnsWithChoices;
    long choicesZstd;
    long deltasAfterChoices;
    long deltasAfterAssembled;
    long deltasAfterExact;
    long turns;
  }

  private static int run(int perFile) throws IOException {
    System.out.println(BENCHMARK.title());
    Machine.header(System.out);
    Path corpora =
        ProjectHome.find()
            .orElseThrow(() -> new IllegalStateException("no project root"))
            .resolve("corpora");
    System.out.printf(
        Locale.ROOT,
        "%-40s %7s %10s %12s %7s %10s %12s %7s%n",
        "corpus",
        "answers",
        "exact KB",
        "assembled KB",
        "ratio",
        "zstd exact",
        "zstd assembl",
        "ratio");
    Tally all = new Tally();
    DeltaEncoder encoder = DeltaEncoder.withDefaults();
    try (ZstdCompressCtx zstd = new ZstdCompressCtx().setLevel(3)) {
      for (String file : CorpusRequests.MIXED) {
        Tally tally = new Tally();
        for (Conversation conversation :
            CorpusFile.read(corpora.resolve(file)).stream().limit(perFile).toList()) {
          conversation(conversation, encoder, zstd, tally);
        }
        print(file, tally);
        add(all, tally);
      }
    }
    print("all", all);
    System.out.printf(
        Locale.ROOT,
        "bytes per turn: without answers %.0f; with answers assembled %.0f (%.2fx), their"
            + " choices only %.0f (%.2fx), exact %.0f (%.2fx); %d turns%n",
        (double) all.turnsWithout / all.turns,
        (double) all.turnsWithAssembled / all.turns,
        (double) all.turnsWithAssembled / all.turnsWithout,
        (double) all.turnsWithChoices / all.turns,
        (double) all.turnsWithChoices / all.turnsWithout,
        (double) all.turnsWithExact / all.turns,
        (double) all.turnsWithExact / all.turnsWithout,
        all.turns);
    System.out.printf(
        Locale.ROOT,
        "of which the requests' deltas: %.0f with the assembled answer in the base, %.0f with its"
            + " choices, %.0f with the exact one; the answers' own bytes: %.0f assembled, %.0f"
            + " choices, %.0f exact%n",
        (double) all.deltasAfterAssembled / all.turns,
        (double) all.deltasAfterChoices / all.turns,
        (double) all.deltasAfterExact / all.turns,
        (double) all.assembledZstd / all.turns,
        (double) all.choicesZstd / all.turns,
        (double) all.exactZstd / all.turns);
    Machine.footer(System.out);
    return 0;
  }

  private static void conversation(
      Conversation conversation, DeltaEncoder encoder, ZstdCompressCtx zstd, Tally tally)
      throws IOException {
    List<ChatRequests.ChatRequest> requests =
        new ChatRequests(MODEL, ChatRequests.DEFAULT_SYSTEM_PROMPT).of(conversation);
    List<ObjectNode> answers =
        conversation.messages().stream()
            .filter(m -> "assistant".equals(m.path("role").asText()))
            .toList();
    byte[] previous = null;
    byte[] previousExact = null;
    byte[] previousAssembled = null;
    byte[] previousChoices = null;
    for (int turn = 0; turn < requests.size(); turn++) {
      byte[] body = requests.get(turn).body();
      if (previous == null) {
        long keyframe = zstd.compress(body).length;
        tally.turnsWithout += keyframe;
        tally.turnsWithAssembled += keyframe;
        tally.turnsWithExact += keyframe;
        tally.turnsWithChoices += keyframe;
      } else {
        tally.turnsWithout += delta(encoder, zstd, previous, body);
        long afterAssembled = delta(encoder, zstd, concat(previous, previousAssembled), body);
        long afterExact = delta(encoder, zstd, concat(previous, previousExact), body);
        long afterChoices = delta(encoder, zstd, concat(previous, previousChoices), body);
        tally.turnsWithChoices += afterChoices;
        tally.deltasAfterChoices += afterChoices;
        tally.turnsWithAssembled += afterAssembled;
        tally.turnsWithExact += afterExact;
        tally.deltasAfterAssembled += afterAssembled;
        tally.deltasAfterExact += afterExact;
      }
      byte[] exact =
          AnswerStreams.of(answers.get(turn), "chatcmpl-" + conversation.id() + "-" + turn, MODEL);
      ChatStreamAssembly assembly = new ChatStreamAssembly();
      assembly.accept(exact, 0, exact.length);
      byte[] assembled = assembly.finish().json();
      // What the request metadata does not already hold (it has the id and the usage): the choices.
      byte[] choices = Json.treeBytes(Json.mapper().readTree(assembled).path("choices"));
      long choicesZstd = zstd.compress(choices).length;
      tally.choicesZstd += choicesZstd;
      tally.turnsWithChoices += choicesZstd;
      long exactZstd = zstd.compress(exact).length;
      long assembledZstd = zstd.compress(assembled).length;
      tally.answers++;
      tally.exact += exact.length;
      tally.assembled += assembled.length;
      tally.exactZstd += exactZstd;
      tally.assembledZstd += assembledZstd;
      tally.turnsWithAssembled += assembledZstd;
      tally.turnsWithExact += exactZstd;
      tally.turns++;
      previous = body;
      previousExact = exact;
      previousAssembled = assembled;
      previousChoices = choices;
    }
  }

  /** A delta's bytes as counted here: its ops as JSON, at zstd level 3. */
  private static long delta(DeltaEncoder encoder, ZstdCompressCtx zstd, byte[] base, byte[] body) {
    try {
      return zstd.compress(Json.mapper().writeValueAsBytes(encoder.encode(base, body).ops()))
          .length;
    } catch (IOException e) {
      throw new IllegalStateException("delta ops always serialise", e);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = new byte[a.length + b.length];
    System.arraycopy(a, 0, both, 0, a.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static void add(Tally into, Tally t) {
    into.answers += t.answers;
    into.exact += t.exact;
    into.assembled += t.assembled;
    into.exactZstd += t.exactZstd;
    into.assembledZstd += t.assembledZstd;
    into.turnsWithout += t.turnsWithout;
    into.turnsWithAssembled += t.turnsWithAssembled;
    into.turnsWithExact += t.turnsWithExact;
    into.deltasAfterAssembled += t.deltasAfterAssembled;
    into.turnsWithChoices += t.turnsWithChoices;
    into.choicesZstd += t.choicesZstd;
    into.deltasAfterChoices += t.deltasAfterChoices;
    into.deltasAfterExact += t.deltasAfterExact;
    into.turns += t.turns;
  }

  private static void print(String corpus, Tally t) {
    System.out.printf(
        Locale.ROOT,
        "%-40s %7d %10.1f %12.1f %6.1fx %10.1f %12.1f %6.1fx%n",
        corpus,
        t.answers,
        t.exact / 1e3,
        t.assembled / 1e3,
        (double) t.exact / t.assembled,
        t.exactZstd / 1e3,
        t.assembledZstd / 1e3,
        (double) t.exactZstd / t.assembledZstd);
  }
}
