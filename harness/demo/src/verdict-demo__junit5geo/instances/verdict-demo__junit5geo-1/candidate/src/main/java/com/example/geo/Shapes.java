package com.example.geo;

/** Areas of simple plane shapes. */
public final class Shapes {
    private Shapes() {
    }

    public static double circleArea(double radius) {
        return Math.PI * radius * radius;
    }

    public static double rectangleArea(double width, double height) {
        return width * height;
    }

    /** Area of a triangle from its three side lengths (Heron's formula). */
    public static double triangleArea(double a, double b, double c) {
        // Heron's formula in its factored form, without the semi-perimeter.
        return 0.25 * Math.sqrt((a + b + c) * (-a + b + c) * (a - b + c) * (a + b - c));
    }
}
