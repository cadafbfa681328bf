/* Registry of the architecture families infer8 can build, looked up by timm architecture name. */
#include "families/family.h"

#include <string.h>

static const i8_family *const families[] = {
    &i8_family_inception_resnet_v2,
    &i8_family_inception_v4,
    &i8_family_inception_v3,
    NULL,
};

const i8_family *i8_family_find(const char *arch) {
    if (!arch) return NULL;
    for (int i = 0; families[i]; i++)
        if (strcmp(families[i]->arch, arch) == 0) return families[i];
    return NULL;
}

const i8_family *const *i8_family_list(void) { return families; }
