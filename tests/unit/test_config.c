/* Unit tests of the timm config.json reader/writer: a full hub config, defaults kept for absent
 * fields, every wrong type and bad value with its status code and dotted key, malformed JSON
 * with its byte offset, and the written JSON checked by Python's json module. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/config.h"

static char g_work[512];

static int setup_work(void **state) {
    const char *w = getenv("INFER8_WORK");
    if (w && *w) snprintf(g_work, sizeof g_work, "%s", w);
    else snprintf(g_work, sizeof g_work, "/tmp/infer8_test_config_%ld", (long)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_work);
    return system(cmd) == 0 ? 0 : -1;
}

/* Family-style defaults (inception_v3-like) the caller pre-fills. */
static void defaults(i8_model_config *c) {
    memset(c, 0, sizeof *c);
    c->num_classes = 1000;
    c->pre.input_size[0] = 3;
    c->pre.input_size[1] = c->pre.input_size[2] = 299;
    c->pre.crop_pct = 0.875f;
    c->pre.interpolation = I8_INTERP_BICUBIC;
    for (int i = 0; i < 3; i++) c->pre.mean[i] = c->pre.std[i] = 0.5f;
}

static const char *FULL =
    "{\"architecture\": \"inception_resnet_v2\", \"num_classes\": 3, \"num_features\": 1536,\n"
    " \"global_pool\": \"avg\",\n"
    " \"pretrained_cfg\": {\"tag\": \"tf_in1k\", \"custom_load\": false, \"input_size\": [3, 320, 288],\n"
    "   \"fixed_input_size\": false, \"interpolation\": \"bilinear\", \"crop_pct\": 0.8975, \"crop_mode\": \"center\",\n"
    "   \"mean\": [0.485, 0.456, 0.406], \"std\": [0.229, 0.224, 0.225], \"num_classes\": 3, \"pool_size\": [8, 8],\n"
    "   \"first_conv\": \"conv2d_1a.conv\", \"classifier\": \"classif\", \"license\": \"apache-2.0\"},\n"
    " \"label_names\": [\"tench\", \"caf\\u00e9 \\\"cr\\u00e8me\\\"\", \"\\ud83d\\ude00 smile\"]}";

static void test_parse_full(void **state) {
    i8_model_config c;
    defaults(&c);
    i8_err err = {0};
    /* not NUL-terminated: parse must respect size */
    size_t n = strlen(FULL);
    char *text = malloc(n + 8);
    memcpy(text, FULL, n);
    memcpy(text + n, "garbage!", 8);
    assert_int_equal(i8_config_parse(&c, text, n, "config.json", &err), INFER8_OK);
    free(text);
    assert_string_equal(c.architecture, "inception_resnet_v2");
    assert_string_equal(c.tag, "tf_in1k");
    assert_int_equal(c.num_classes, 3);
    assert_int_equal(c.num_features, 1536);
    assert_int_equal(c.pre.input_size[0], 3);
    assert_int_equal(c.pre.input_size[1], 320);
    assert_int_equal(c.pre.input_size[2], 288);
    assert_true(c.pre.crop_pct == 0.8975f);
    assert_int_equal(c.pre.interpolation, I8_INTERP_BILINEAR);
    assert_true(c.pre.mean[0] == 0.485f && c.pre.mean[1] == 0.456f && c.pre.mean[2] == 0.406f);
    assert_true(c.pre.std[0] == 0.229f && c.pre.std[1] == 0.224f && c.pre.std[2] == 0.225f);
    assert_int_equal(c.n_labels, 3);
    assert_string_equal(c.labels[0], "tench");
    assert_string_equal(c.labels[1], "caf\xc3\xa9 \"cr\xc3\xa8me\"");
    assert_string_equal(c.labels[2], "\xf0\x9f\x98\x80 smile");
    i8_config_free(&c);
    assert_null(c.labels);
    assert_int_equal(c.n_labels, 0);
}

static void test_defaults_kept(void **state) {
    i8_model_config c;
    defaults(&c);
    i8_err err = {0};
    const char *t = "{\"architecture\": \"inception_v3\"}";
    assert_int_equal(i8_config_parse(&c, t, strlen(t), "config.json", &err), INFER8_OK);
    assert_string_equal(c.architecture, "inception_v3");
    assert_string_equal(c.tag, "");
    assert_int_equal(c.num_classes, 1000);
    assert_int_equal(c.num_features, 0);
    assert_int_equal(c.pre.input_size[1], 299);
    assert_true(c.pre.crop_pct == 0.875f);
    assert_int_equal(c.pre.interpolation, I8_INTERP_BICUBIC);
    assert_true(c.pre.mean[2] == 0.5f);
    assert_int_equal(c.n_labels, 0);
    assert_null(c.labels);
    /* num_classes from pretrained_cfg when the top level has none */
    t = "{\"architecture\": \"inception_v4\", \"pretrained_cfg\": {\"num_classes\": 1001}}";
    assert_int_equal(i8_config_parse(&c, t, strlen(t), "config.json", &err), INFER8_OK);
    assert_int_equal(c.num_classes, 1001);
    /* the top level wins */
    t = "{\"architecture\": \"inception_v4\", \"num_classes\": 10, \"pretrained_cfg\": {\"num_classes\": 1001}}";
    assert_int_equal(i8_config_parse(&c, t, strlen(t), "config.json", &err), INFER8_OK);
    assert_int_equal(c.num_classes, 10);
}

typedef struct bad_case {
    const char *json;
    infer8_status code;
    const char *needle;
} bad_case;

static void test_bad_configs(void **state) {
    static const bad_case cases[] = {
        {"[1]", INFER8_E_FORMAT, "config.json: expected a JSON object, found array"},
        {"{}", INFER8_E_MISSING_KEY, "config.json: architecture: missing"},
        {"{\"architecture\": 5}", INFER8_E_FORMAT, "config.json: architecture: expected a string, found number"},
        {"{\"architecture\": \"\"}", INFER8_E_FORMAT, "architecture: expected a non-empty"},
        {"{\"architecture\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", INFER8_E_FORMAT,
         "architecture: expected a non-empty UTF-8 string below 64 bytes, without control characters"},
        /* an escaped ESC is valid JSON, but the tag is shown later (the study's report) */
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"tag\": \"a\\u001b[2J\"}}", INFER8_E_FORMAT,
         "tag: expected a UTF-8 string below"},
        {"{\"architecture\": \"x\", \"num_classes\": \"1000\"}", INFER8_E_FORMAT,
         "config.json: num_classes: expected an integer, found string"},
        {"{\"architecture\": \"x\", \"num_classes\": 0}", INFER8_E_FORMAT, "num_classes: expected an integer in [1, 100000], found 0"},
        {"{\"architecture\": \"x\", \"num_classes\": 100001}", INFER8_E_FORMAT, "num_classes: expected an integer in [1, 100000]"},
        {"{\"architecture\": \"x\", \"num_classes\": 10.5}", INFER8_E_FORMAT, "found 10.5"},
        {"{\"architecture\": \"x\", \"num_features\": true}", INFER8_E_FORMAT, "num_features: expected an integer, found boolean"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": []}", INFER8_E_FORMAT, "pretrained_cfg: expected an object, found array"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"num_classes\": null}}", INFER8_E_FORMAT,
         "pretrained_cfg.num_classes: expected an integer, found null"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"tag\": 1}}", INFER8_E_FORMAT,
         "pretrained_cfg.tag: expected a string, found number"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"crop_pct\": \"0.9\"}}", INFER8_E_FORMAT,
         "config.json: pretrained_cfg.crop_pct: expected a number, found string"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"crop_pct\": 0}}", INFER8_E_FORMAT,
         "pretrained_cfg.crop_pct: expected a number in (0, 1], found 0"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"crop_pct\": 1.01}}", INFER8_E_FORMAT, "found 1.01"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": 299}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size: expected an array [3, H, W], found number"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": [299, 299]}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size: expected [3, H, W], found 2 entries"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": [1, 299, 299]}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size[0]: expected an integer in [3, 3], found 1"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": [3, 74, 299]}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size[1]: expected an integer in [75, 4096], found 74"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": [3, 299, 4097]}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size[2]"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"input_size\": [3, \"299\", 299]}}", INFER8_E_FORMAT,
         "pretrained_cfg.input_size[1]: expected an integer, found string"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"interpolation\": \"nearest\"}}", INFER8_E_UNSUPPORTED,
         "pretrained_cfg.interpolation: 'nearest' is not supported"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"interpolation\": 3}}", INFER8_E_FORMAT,
         "pretrained_cfg.interpolation: expected a string, found number"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"crop_mode\": \"squash\"}}", INFER8_E_UNSUPPORTED,
         "pretrained_cfg.crop_mode: 'squash'"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"crop_mode\": false}}", INFER8_E_FORMAT,
         "pretrained_cfg.crop_mode: expected a string, found boolean"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"mean\": [0.5, 0.5]}}", INFER8_E_FORMAT,
         "pretrained_cfg.mean: expected 3 numbers, found 2"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"mean\": 0.5}}", INFER8_E_FORMAT,
         "pretrained_cfg.mean: expected an array of 3 numbers, found number"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"mean\": [0.5, \"a\", 0.5]}}", INFER8_E_FORMAT,
         "pretrained_cfg.mean[1]: expected a number, found string"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"mean\": [0.5, 0.5, 1e999]}}", INFER8_E_FORMAT,
         "pretrained_cfg.mean[2]: expected a finite number"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"std\": [0.5, 0, 0.5]}}", INFER8_E_FORMAT,
         "pretrained_cfg.std[1]: expected a finite positive number, found 0"},
        {"{\"architecture\": \"x\", \"pretrained_cfg\": {\"std\": [0.5, 0.5, -0.2]}}", INFER8_E_FORMAT,
         "pretrained_cfg.std[2]"},
        {"{\"architecture\": \"x\", \"num_classes\": 3, \"label_names\": [\"a\", \"b\"]}", INFER8_E_FORMAT,
         "config.json: label_names: 2 names for 3 classes"},
        {"{\"architecture\": \"x\", \"num_classes\": 2, \"label_names\": [\"a\", 7]}", INFER8_E_FORMAT,
         "label_names[1]: expected a string, found number"},
        {"{\"architecture\": \"x\", \"num_classes\": 2, \"label_names\": \"a,b\"}", INFER8_E_FORMAT,
         "label_names: expected an array of strings, found string"},
        {"{\"architecture\": \"x\", \"num_classes\": 1, \"label_names\": [\"\xff\"]}", INFER8_E_FORMAT,
         "config.json: not JSON text: invalid UTF-8 (byte 0xff) at byte offset 57"}, /* before cJSON */
        {"{\"architecture\": \"x\", \"num_classes\": 2, \"label_names\": [\"a\", \"b\\u001b[2J\"]}",
         INFER8_E_FORMAT, "label_names[1]: not UTF-8 without control characters"},
        /* malformed JSON: the offset of the error (hand-counted; Python's json reports the same
         * chars 6 and 8; cJSON's position can be one byte later in other cases, e.g. ",,") */
        {"{\"architecture\": tru}", INFER8_E_FORMAT, "config.json: malformed JSON at byte offset 17"},
        {"{\"a\": 1 \"architecture\": 2}", INFER8_E_FORMAT, "config.json: malformed JSON at byte offset 8"},
        {"{\"architecture\": \"x\"} {}", INFER8_E_FORMAT, "unexpected text at byte offset 22"},
        {"", INFER8_E_FORMAT, "malformed JSON at byte offset 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        i8_model_config c;
        defaults(&c);
        i8_model_config before = c;
        i8_err err = {0};
        infer8_status s = i8_config_parse(&c, cases[i].json, strlen(cases[i].json), "config.json", &err);
        if (s != cases[i].code || !strstr(err.msg, cases[i].needle))
            print_error("case %zu: %s\n  got %d: %s\n", i, cases[i].json, s, err.msg);
        assert_int_equal(s, cases[i].code);
        assert_non_null(strstr(err.msg, cases[i].needle));
        assert_memory_equal(&c, &before, sizeof c); /* untouched on failure */
    }
    /* a long label (1025 bytes) is refused, 1024 accepted */
    char *t = malloc(1200);
    for (int len = 1024; len <= 1025; len++) {
        int k = snprintf(t, 1200, "{\"architecture\": \"x\", \"num_classes\": 1, \"label_names\": [\"");
        memset(t + k, 'q', (size_t)len);
        strcpy(t + k + len, "\"]}");
        i8_model_config c;
        defaults(&c);
        i8_err err = {0};
        assert_int_equal(i8_config_parse(&c, t, strlen(t), "config.json", &err),
                         len == 1024 ? INFER8_OK : INFER8_E_FORMAT);
        i8_config_free(&c);
    }
    free(t);
}

static void test_load_and_to_json(void **state) {
    char path[700];
    snprintf(path, sizeof path, "%s/config.json", g_work);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(FULL, f);
    fclose(f);
    i8_model_config c;
    defaults(&c);
    i8_err err = {0};
    assert_int_equal(i8_config_load(&c, path, NULL, &err), INFER8_OK);
    assert_int_equal(c.n_labels, 3);
    /* the message names the path given */
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_json_bytes = 10;
    i8_model_config c2;
    defaults(&c2);
    assert_int_equal(i8_config_load(&c2, path, &lim, &err), INFER8_E_LIMIT);
    assert_int_equal(i8_config_load(&c2, "/nonexistent/config.json", NULL, &err), INFER8_E_IO);

    char *json = NULL;
    assert_int_equal(i8_config_to_json(&c, "conv2d_1a.conv", "classif", &json, &err), INFER8_OK);
    /* our own reader reads it back to the same values */
    i8_model_config back;
    memset(&back, 0, sizeof back);
    assert_int_equal(i8_config_parse(&back, json, strlen(json), "written", &err), INFER8_OK);
    assert_string_equal(back.architecture, c.architecture);
    assert_string_equal(back.tag, c.tag);
    assert_int_equal(back.num_classes, 3);
    assert_int_equal(back.num_features, 1536);
    assert_memory_equal(&back.pre, &c.pre, sizeof c.pre);
    for (int i = 0; i < 3; i++) assert_string_equal(back.labels[i], c.labels[i]);
    i8_config_free(&back);
    /* Python layout: 2-space indent, one array element per line */
    assert_non_null(strstr(json, "{\n  \"architecture\": \"inception_resnet_v2\",\n  \"num_classes\": 3,\n"));
    assert_non_null(strstr(json, "\"crop_pct\": 0.8975,"));
    assert_non_null(strstr(json, "\"mean\": [\n      0.485,\n      0.456,\n      0.406\n    ],"));
    assert_non_null(strstr(json, "\"caf\\u00e9 \\\"cr\\u00e8me\\\"\""));
    assert_non_null(strstr(json, "\"\\ud83d\\ude00 smile\""));

    /* independent check: Python's json reads the same values */
    if (system("/usr/bin/python3 -c 'import json' 2>/dev/null") != 0) {
        printf("NOTICE: /usr/bin/python3 not available; Python config check skipped\n");
    } else {
        char out[700], cmd[2200];
        snprintf(out, sizeof out, "%s/written_config.json", g_work);
        assert_int_equal(i8_write_file_atomic(out, json, strlen(json), &err), INFER8_OK);
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); p=d['pretrained_cfg'];"
                 "assert d['architecture']=='inception_resnet_v2' and d['num_classes']==3 and d['num_features']==1536;"
                 "assert p['tag']=='tf_in1k' and p['input_size']==[3,320,288] and p['interpolation']=='bilinear';"
                 "assert p['crop_pct']==0.8975 and p['crop_mode']=='center' and p['num_classes']==3;"
                 "assert p['mean']==[0.485,0.456,0.406] and p['std']==[0.229,0.224,0.225];"
                 "assert p['first_conv']=='conv2d_1a.conv' and p['classifier']=='classif';"
                 "assert p['custom_load'] is False and p['fixed_input_size'] is False;"
                 "assert d['label_names']==['tench', 'caf\\u00e9 \\\"cr\\u00e8me\\\"', '\\U0001F600 smile'], "
                 "d['label_names'];"
                 "assert open(sys.argv[1]).read()==json.dumps(d, indent=2); print('python config check ok')\" '%s'",
                 out);
        assert_int_equal(system(cmd), 0);
    }
    free(json);
    /* without labels and optional names */
    i8_config_free(&c);
    assert_int_equal(i8_config_to_json(&c, NULL, NULL, &json, &err), INFER8_OK);
    assert_null(strstr(json, "label_names"));
    assert_null(strstr(json, "first_conv"));
    free(json);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_full),
        cmocka_unit_test(test_defaults_kept),
        cmocka_unit_test(test_bad_configs),
        cmocka_unit_test(test_load_and_to_json),
    };
    return cmocka_run_group_tests(tests, setup_work, NULL);
}
