package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ImagePolicyTest {

  @Test
  void shouldAcceptReleaseVersionsAndDigests() {
    assertThat(ImagePolicy.problem("apache/kafka:4.3.1")).isEmpty();
    assertThat(ImagePolicy.problem("postgres:17.6")).isEmpty();
    assertThat(ImagePolicy.problem("vllm/vllm-openai:v0.26.0")).isEmpty();
    assertThat(ImagePolicy.problem("eclipse-temurin:25.0.1_8-jre-noble")).isEmpty();
    assertThat(ImagePolicy.problem("minio/minio:RELEASE.2025-09-07T16-13-09Z")).isEmpty();
    assertThat(ImagePolicy.problem("registry.example.com:5000/team/app:1.2.3")).isEmpty();
    assertThat(ImagePolicy.problem("busybox@sha256:" + "ab".repeat(32))).isEmpty();
  }

  @Test
  void shouldRejectMovingTags() {
    assertThat(ImagePolicy.problem("postgres"))
        .hasValueSatisfying(p -> assertThat(p).contains("latest"));
    assertThat(ImagePolicy.problem("postgres:latest"))
        .hasValueSatisfying(p -> assertThat(p).contains("moving tag 'latest'"));
    assertThat(ImagePolicy.problem("eclipse-temurin:25-jre")).isPresent();
    assertThat(ImagePolicy.problem("eclipse-temurin:25")).isPresent();
    assertThat(ImagePolicy.problem("minio/minio:stable")).isPresent();
    assertThat(ImagePolicy.problem("registry.example.com:5000/team/app")).isPresent();
    assertThat(ImagePolicy.problem("busybox@sha256:abc"))
        .hasValueSatisfying(p -> assertThat(p).contains("malformed digest"));
  }

  @Test
  void shouldReportAServiceWithAnUnpinnedImageAndAcceptABuiltOne() {
    // Given
    ComposeFile file =
        ComposeFile.parse(
            "services:\n"
                + "  good: {image: 'apache/kafka:4.3.1'}\n"
                + "  built: {build: {context: .}, image: 'prefixlog/x:dev'}\n"
                + "  bad: {image: 'minio/minio:latest'}\n"
                + "  none: {command: 'true'}\n");

    // When / Then
    assertThat(file.imageProblems())
        .containsExactly(
            "bad: 'minio/minio:latest' has the moving tag 'latest': pin a release version or a digest",
            "none: neither build nor image");
  }
}
