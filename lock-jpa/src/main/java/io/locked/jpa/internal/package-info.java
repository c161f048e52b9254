/**
 * Lock-jpa's internals, below the public {@code io.locked.jpa}: which path locks a unit's rows,
 * and the start-up checks of that choice ({@link io.locked.jpa.internal.LockPaths}). Each sub-
 * package is one concern; each uses its own layer and the layers below it (docs/design.md; {@code
 * PackageRulesTest} checks it). Not API: may change in any release.
 */
package io.locked.jpa.internal;
