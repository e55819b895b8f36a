package io.prefixlog.tools.replay;

import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.replay.InterleavePlan.Step;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The replay's turns in plan order, whatever they are sent to (the raw topic or a proxy): each
 * session's requests are rendered when its first turn comes up and dropped after its last, so
 * memory holds only the sessions in flight. Request ids are random, or drawn from the seed.
 */
final class Turns implements Iterable<Turns.Turn> {
  private final List<Conversation> sessions;
  private final List<Step> plan;
  private final ChatRequests renderer;
  private final Random random;
  private final Set<Integer> started = new HashSet<>();

  /**
   * @param random the seeded source of request ids, or null for random ones
   */
  Turns(List<Conversation> sessions, List<Step> plan, ChatRequests renderer, Random random) {
    this.sessions = sessions;
    this.plan = plan;
    this.renderer = renderer;
    this.random = random;
  }

  /**
   * One turn to send.
   *
   * @param session the session's index in the selection
   * @param last whether it is the session's last turn
   */
  record Turn(int session, ChatRequest request, String requestId, boolean last) {}

  /** Distinct sessions whose first turn has been iterated. */
  long sessionsStarted() {
    return started.size();
  }

  @Override
  public Iterator<Turn> iterator() {
    Map<Integer, List<ChatRequest>> rendered = new HashMap<>();
    Iterator<Step> steps = plan.iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return steps.hasNext();
      }

      @Override
      public Turn next() {
        if (!steps.hasNext()) {
          throw new NoSuchElementException();
        }
        Step step = steps.next();
        started.add(step.session());
        List<ChatRequest> requests =
            rendered.computeIfAbsent(step.session(), i -> renderer.of(sessions.get(i)));
        boolean last = step.turn() == requests.size() - 1;
        if (last) {
          rendered.remove(step.session()); // its last turn: drop the rendered bodies
        }
        return new Turn(step.session(), requests.get(step.turn()), requestId(random), last);
      }
    };
  }

  static String requestId(Random random) {
    if (random == null) {
      return UUID.randomUUID().toString();
    }
    long msb = random.nextLong();
    long lsb = random.nextLong();
    msb = (msb & ~0xF000L) | 0x4000L; // version 4
    lsb = (lsb & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
    return new UUID(msb, lsb).toString();
  }
}
