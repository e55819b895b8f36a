/** JUnit 5 extension giving each test JVM one Kafka broker (child process or Testcontainers). */
package io.prefixlog.embedded.junit;
