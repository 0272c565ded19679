/* CurvesPlugin exports only motion_plugin_entry; SwiftPM C targets want a header. */
#ifndef CURVES_PLUGIN_H
#define CURVES_PLUGIN_H
#include "motion_plugin.h"
const motion_plugin *motion_plugin_entry(void);
#endif
