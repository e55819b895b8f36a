/**
 * Rolling upgrades: which version of each state and record format the app writes ({@link
 * io.prefixlog.streams.upgrade.FormatGenerations}, {@code PREFIXLOG_UPGRADE_FROM}), and the check
 * that refuses to join a group whose running members have another topology or cannot read these
 * formats ({@link io.prefixlog.streams.upgrade.GroupGuard}).
 */
package io.prefixlog.streams.upgrade;
