package io.prefixlog.tools;

import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The sessions of several tenants as a bridge with {@code PREFIXLOG_TENANT=header:x-team} captures
 * them (its own event factory), published to the raw topic, and a running stream app that turns
 * them into delta records: for the tests of what the tools do per tenant.
 */
public final class TenantTraffic {
  /** The header the tenants are read from. */
  public static final String TEAM_HEADER = "x-team";

  private TenantTraffic() {}

  /** A started stream app on one partition per topic, RUNNING. */
  public static StreamApp startStreamApp(
      String bootstrap, String prefix, String applicationId, Path stateDir) throws Exception {
    Map<String, String> settings = StreamApps.settings(bootstrap, prefix, applicationId, stateDir);
    settings.put("PREFIXLOG_PARTITIONS", "1");
    StreamApp app = new StreamApp(StreamAppConfig.defaults(settings));
    StreamApps.start(app);
    return app;
  }

  /**
   * Publishes {@code turns} growing chat requests per session, keyed as the bridge keys them.
   *
   * @param sessions (team, session id) pairs, or (team, session id, status) for a session whose
   *     requests the engine answered with another status than 200 (401: the bridge keeps no body)
   * @return the session keys of each team
   */
  public static Map<String, Set<String>> publish(
      String bootstrap, String topic, String secret, List<List<String>> sessions, int turns)
      throws Exception {
    OfflineCapture bridge =
        new OfflineCapture(
            ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), bootstrap)
                .with(CaptureConfig.SESSION_SECRET, secret)
                .with(CaptureConfig.TENANT, new TenantSource(TEAM_HEADER, false)));
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    Map<String, Set<String>> keysByTeam = new TreeMap<>();
    long ts = 1_750_000_000_000L;
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (List<String> session : sessions) {
        String team = session.get(0);
        String id = session.get(1);
        int status = session.size() > 2 ? Integer.parseInt(session.get(2)) : 200;
        StringBuilder messages = new StringBuilder();
        for (int turn = 1; turn <= turns; turn++) {
          if (turn > 1) {
            messages.append(',');
          }
          messages.append(
              String.format(
                  "{\"role\":\"user\",\"content\":\"turn %d of %s of %s\"}", turn, id, team));
          byte[] body =
              ("{\"model\":\"m\",\"messages\":[" + messages + "]}")
                  .getBytes(StandardCharsets.UTF_8);
          byte[] event =
              bridge.capture(
                  team + "-" + id + "-" + turn,
                  ts++,
                  Map.of("x-session-id", id, TEAM_HEADER, team),
                  body,
                  status,
                  null);
          String key = RawEventFrame.readAsVersion1(event).sessionKey();
          keysByTeam.computeIfAbsent(team, t -> new TreeSet<>()).add(key);
          producer.send(new ProducerRecord<>(topic, key, event)).get();
        }
      }
    }
    return keysByTeam;
  }
}
