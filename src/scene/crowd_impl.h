/* What crowd.c shares with crowd_change.c: the moved list. */
#ifndef VKS_CROWD_IMPL_H
#define VKS_CROWD_IMPL_H

#include "crowd.h"

/* The moved list, allocated at the first move (room for instance_capacity); false when out of
 * memory. */
bool vks_crowd__moved_list(vks_crowd *crowd);
/* Lists instance i as moved (once), the list allocated. */
void vks_crowd__mark_moved(vks_crowd *crowd, uint32_t i);

#endif
