package com.example.geo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Shape areas")
class ShapesTest {

    @Test
    @DisplayName("a unit circle has area pi")
    void unitCircle() {
        assertEquals(Math.PI, Shapes.circleArea(1.0), 1e-9);
    }

    @Test
    void zeroRadiusCircle() {
        assertEquals(0.0, Shapes.circleArea(0.0), 1e-9);
    }

    @Nested
    @DisplayName("rectangles")
    class Rectangles {
        @ParameterizedTest(name = "{0} x {1} = {2}")
        @CsvSource({"2, 3, 6", "0.5, 4, 2", "7, 0, 0"})
        void area(double width, double height, double expected) {
            assertEquals(expected, Shapes.rectangleArea(width, height), 1e-9);
        }

        @Test
        void squareArea() {
            assertEquals(9.0, Shapes.rectangleArea(3, 3), 1e-9);
        }

        @Test
        void negativeSideIsRejected() {
            assertThrows(IllegalArgumentException.class, () -> Shapes.rectangleArea(-2, 3));
        }
    }
}
