package io.locked.jpa.mapping;

import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The lock row's times in a {@code TIMESTAMP WITH TIME ZONE} column (PostgreSQL, H2 and most
 * others), for a provider of Jakarta Persistence 3.1 without a mapping of its own for {@link Instant}:
 * EclipseLink 4 would store an {@code Instant} serialized, as bytes. An offset date-time keeps the
 * instant whatever the JVM's zone. Applied by {@code META-INF/locked/instant-mapping.xml}.
 */
@Converter
public class InstantWithTimeZone implements AttributeConverter<Instant, OffsetDateTime> {
    @Override
    public OffsetDateTime convertToDatabaseColumn(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    @Override
    public Instant convertToEntityAttribute(OffsetDateTime column) {
        return column == null ? null : column.toInstant();
    }
}
