package io.locked.eeapp;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The JAX-RS resources at the WAR's root. */
@ApplicationPath("/")
public class TestApplication extends Application {
}
