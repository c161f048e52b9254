package com.acme;

import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/** Boots Weld SE, makes one {@code @Locked} call and prints what the lock was. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        try (WeldContainer container = new Weld().initialize()) {
            System.out.println("locked call: " + container.select(Jobs.class).get().run());
        }
    }
}
