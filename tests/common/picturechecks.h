// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a test can tell of a picture without looking at it: whether anything is drawn, and in
// which look.

#include <QtCore/QSet>
#include <QtGui/QColor>
#include <QtGui/QImage>

namespace QEtcd::Testing {

// Not blank: more than a handful of colours in a grid of samples over the whole picture, every
// step pixels each way.
inline int coloursIn(const QImage &image, int step = 4)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

// How light a picture is on the whole, 0 to 1, from a grid of samples.
inline double lightnessOf(const QImage &image)
{
    double sum = 0;
    int samples = 0;
    for (int y = 0; y < image.height(); y += 8) {
        for (int x = 0; x < image.width(); x += 8, ++samples)
            sum += QColor(image.pixel(x, y)).lightnessF();
    }
    return samples ? sum / samples : 0;
}

} // namespace QEtcd::Testing
