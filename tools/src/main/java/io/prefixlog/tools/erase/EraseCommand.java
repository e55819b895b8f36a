package io.prefixlog.tools.erase;

import io.prefixlog.bridge.proxy.SpillEraser;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.util.List;

/**
 * {@code prefixlog erase}: removes the named sessions from every copy prefixlog keeps, in an order
 * that is safe while traffic flows, and says what it did and what is still pending.
 *
 * <ol>
 *   <li>Read {@code session.deltas} and {@code chunk.lookups}: every key of the sessions, and each
 *       chain's last turn (for {@code --before}).
 *   <li>Write an erase order per session on {@code requests.raw} (keyed by the session, so it
 *       reaches the task that owns its state, after the session's earlier requests) and one per KV
 *       source on {@code kv.events}; tombstone every live key of the chosen chains, in the
 *       partition it lives in.
 *   <li>Wait for the stream app's acknowledgements: it drops the state, tombstones the current
 *       chain (including turns made since step 1) and compacts its files. Turns after the order
 *       start a new chain, which is not erased.
 *   <li>Delete the raw inputs the stream app has processed (so no reprocessing brings the session
 *       back), and the sessions' dead letters ({@link DeadLetterErasure}).
 *   <li>With {@code --archive}: wait until the archive's sink has committed every record of the
 *       sessions that the archived topics held at the acknowledgements ({@link SinkCatchUp}: the
 *       sink drops tombstones, so what it archived after the deletes would stay), then erase the
 *       archive (Iceberg deletes, rewrite, snapshot expiry). A sink that does not catch up within
 *       {@code --sink-timeout} leaves its later rows pending: they are reported, and a second run
 *       erases them.
 * </ol>
 *
 * <p>{@code --spill-dir} is another, offline, part: a stopped capture proxy's spill directory
 * rewritten without the sessions' events ({@link SpillEraser}), run on the proxy's host.
 *
 * <p>Running it again is harmless: what is gone is not found, and an order for a session without
 * state is acknowledged {@code absent}.
 */
public final class EraseCommand implements Command {

  static final List<Option> OPTIONS = EraseOptions.all();

  private static final String DESCRIPTION =
      """
      Erases sessions everywhere prefixlog keeps them: tombstones for every delta and chunk-lookup
      record of the sessions (all chains), an order the stream app obeys on the instance that owns
      each session (its bases, counters and dedup entries go, the files holding them are
      compacted), the sessions' ids in the KV block index and source statistics, the raw requests
      the stream app has already processed (the raw topic cannot drop one session's records), and
      with --archive the rows of the three Iceberg tables (deletes, then a rewrite of the files
      that held them and expiry of older snapshots). Prints what it removed and what is pending:
      old values stay on the broker until it compacts their segments (at the latest after the
      topics' max.compaction.lag.ms); --check then lists what still names the sessions.
      With --archive it first waits (--sink-timeout) until the archive's sink has committed the
      sessions' records it had not archived yet: it drops tombstones, so rows it wrote after the
      deletes would stay. If it does not catch up in time, the report and --check say "pending:
      sink behind": run erase again once it has. The sessions' dead letters leave the dlq topic
      (the other letters before them are written again at the end first). --spill-dir DIR, on a
      capture proxy's host with the proxy stopped, erases the sessions from its spill directory
      instead, and does nothing else.
      Sessions are named by key (--session), or by the id the client sent (--session-id, hashed
      with PREFIXLOG_SESSION_SECRET as the proxy does) or the body's user (--user). Turns made
      after the erasure start a new chain and are kept. Idempotent; safe while traffic flows.
      Exit code 0 when everything was erased and acknowledged; 1 when something failed, the
      stream app did not acknowledge in time (the orders stay and are obeyed when it runs: run
      erase again to check) or the archive's sink did not catch up; 2 for a bad command line.
      """;

  private final Terminal terminal;

  public EraseCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "erase",
        "Erase sessions from the topics, the stream app's state and the archive.",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return runService(
        args,
        terminal,
        EraseOptions::from,
        request -> new EraseService(terminal).run(request).outcome());
  }
}
