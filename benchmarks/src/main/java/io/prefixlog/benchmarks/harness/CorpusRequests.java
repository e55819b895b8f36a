package io.prefixlog.benchmarks.harness;

import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.UsageException;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The chat requests a client would send for the corpora's conversations, turn after turn. */
public final class CorpusRequests {
  /** Two agentic and two chat corpora: long tool-using turns and short chats. */
  public static final List<String> MIXED =
      List.of(
          "agentic/tau_bench_gpt4o_airline.jsonl",
          "agentic/swe_agent_trajectories.jsonl",
          "chat/hh_rlhf_helpful_base_test.jsonl",
          "chat/oasst_en100_threads.jsonl");

  /**
   * One request.
   *
   * @param id unique in the list: file, conversation and turn
   * @param sessionId the conversation's: file and conversation
   */
  public record Request(String id, String sessionId, byte[] body) {}

  /** {@code --conversations}, which {@link #conversations} reads. */
  public static final Option OPTION =
      Option.value("conversations", "N", "40", "Conversations per corpus file.");

  private CorpusRequests() {}

  /** The conversations per file {@code --conversations} asks for. */
  public static int conversations(CommandLine line) throws UsageException {
    return (int) Benchmark.atMost("conversations", line.longValue("conversations", 40, 1), 10_000);
  }

  /**
   * The requests of the first {@code perFile} conversations of each {@link #MIXED} file of the
   * checkout's corpora.
   */
  public static List<Request> mixed(int perFile) throws IOException {
    Path corpora =
        ProjectHome.find()
            .orElseThrow(() -> new IllegalStateException("no project root"))
            .resolve("corpora");
    return of(corpora, MIXED, perFile);
  }

  /** The raw event {@code bridge} publishes for {@code request}, answered 200. */
  public static byte[] capture(OfflineCapture bridge, Request request) {
    return bridge.capture(
        request.id(), 1_750_000_000_000L, request.sessionId(), request.body(), 200, null);
  }

  /** The requests of the first {@code perFile} conversations of each file, in order. */
  public static List<Request> of(Path corpora, List<String> files, int perFile) throws IOException {
    ChatRequests chat = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Request> requests = new ArrayList<>();
    for (String file : files) {
      for (Conversation conversation :
          CorpusFile.read(corpora.resolve(file)).stream().limit(perFile).toList()) {
        String sessionId = file + "#" + conversation.id();
        for (ChatRequests.ChatRequest request : chat.of(conversation)) {
          requests.add(new Request(sessionId + "#" + request.turn(), sessionId, request.body()));
        }
      }
    }
    return requests;
  }
}
