/**
 * The MicroProfile Health readiness check, used only where the Health API is present (WildFly,
 * Payara, Quarkus with SmallRye Health): nothing outside this package refers to its types.
 */
package io.locked.internal.cdi.health;
