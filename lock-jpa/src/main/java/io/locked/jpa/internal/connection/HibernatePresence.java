package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManagerFactory;

/**
 * Whether Hibernate ORM is on the class path. A class of its own, with no Hibernate type in it: asking
 * {@link HibernateConnections} itself would link that class, whose Hibernate types then fail to load
 * where there is no Hibernate (Payara, EclipseLink applications).
 */
public final class HibernatePresence {
    private HibernatePresence() {
    }

    /** @return whether the unit's provider is Hibernate ORM */
    public static boolean isProviderOf(EntityManagerFactory factory) {
        if (!onClassPath()) {
            return false;
        }
        try {
            HibernateConnections.sessionFactory(factory);
            return true;
        } catch (IllegalStateException otherProvider) {
            return false;
        }
    }

    public static boolean onClassPath() {
        try {
            Class.forName("org.hibernate.engine.spi.SessionFactoryImplementor", false, HibernatePresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
