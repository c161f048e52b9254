package io.locked.payara;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The stop check of the Payara lanes finds Locked's leaked ThreadLocal, and only that. */
class ThreadLocalLeaksTest {
    private static final String LOCKED_LEAK = """
            [2026-11-29T09:00:01.123+0000] [] [SEVERE] [] [org.glassfish.web.loader.WebappClassLoader] [tid: _ThreadID=1 _ThreadName=main] [[
              The web application [app] created a ThreadLocal with key of type [java.lang.ThreadLocal] \
            (value [java.lang.ThreadLocal@1a2b3c]) and a value of type [io.locked.internal.ThreadScope] \
            (value [io.locked.internal.ThreadScope@4d5e6f]) but failed to remove it when the web application was stopped.]]
            """;

    @Test
    void findsASevereRecordOfALeakedThreadLocalOfLocked() {
        String log = """
                [2026-11-29T09:00:00.001+0000] [] [INFO] [] [PayaraMicro] [tid: _ThreadID=1 _ThreadName=main] [[
                  Payara Micro is stopping]]
                """ + LOCKED_LEAK + """
                [2026-11-29T09:00:02.000+0000] [] [INFO] [] [PayaraMicro] [tid: _ThreadID=1 _ThreadName=main] [[
                  stopped]]
                """;
        List<String> leaks = ThreadLocalLeaks.ofLocked(log);
        assertEquals(1, leaks.size(), leaks.toString());
        assertTrue(leaks.get(0).contains("io.locked.internal.ThreadScope"), leaks.get(0));
    }

    @Test
    void findsItInJavasSimpleFormatToo() {
        String log = """
                Nov 29, 2026 9:00:01 AM org.glassfish.web.loader.WebappClassLoader checkThreadLocalMapForLeaks
                SEVERE: The web application [app] created a ThreadLocal with key of type [java.lang.ThreadLocal] \
                and a value of type [io.locked.internal.ThreadScope] but failed to remove it
                """;
        assertEquals(1, ThreadLocalLeaks.ofLocked(log).size());
    }

    @Test
    void passesOtherLibrariesLeaksAndMilderRecords() {
        String otherLibrary = LOCKED_LEAK.replace("io.locked.internal.ThreadScope", "com.example.Cache");
        String warningOnly = LOCKED_LEAK.replace("[SEVERE]", "[WARNING]");
        String severeElsewhere = """
                [2026-11-29T09:00:03.000+0000] [] [SEVERE] [] [jakarta.enterprise.web] [tid: _ThreadID=1 _ThreadName=main] [[
                  a failure unrelated to thread locals]]
                """;
        assertEquals(List.of(), ThreadLocalLeaks.ofLocked(otherLibrary + warningOnly + severeElsewhere));
    }
}
