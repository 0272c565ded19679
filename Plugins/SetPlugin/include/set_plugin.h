/* SetPlugin exports only motion_plugin_entry; this header exists because SwiftPM C targets want one. */
#ifndef SET_PLUGIN_H
#define SET_PLUGIN_H
#include "motion_plugin.h"
const motion_plugin *motion_plugin_entry(void);
#endif
