package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BodyFieldsTest {
  @Test
  void shouldReadTheTopLevelFieldsOfAChatBody() {
    // Given: a chat body with escapes, non-ASCII and nesting in its messages, and the same first
    // message written with other escapes (é, the emoji and the A escaped, in another field order)
    byte[] body =
        ("{\"model\":\"llama-3\",\"messages\":[{\"role\":\"user\",\"content\":\"a \\\"quoted\\\""
                + " é 中文 \uD83D\uDE00 \\n\\u0041 tab\\t\"}],\"temperature\":0.7,\"stream\":true,"
                + "\"user\":\"u-1\",\"session_id\":\"s-1\",\"n\":null,\"x\":[1,-2.5e3,{},[]]}")
            .getBytes(StandardCharsets.UTF_8);
    byte[] sameStart =
        ("{\"messages\":[{\"content\":\"a \\\"quoted\\\" \\u00e9 中文 \\ud83d\\ude00 \\nA tab\\t\","
                + "\"role\":\"user\"}],\"model\":\"llama-3\"}")
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields fields = BodyFields.read(body);

    // Then
    byte[] anchor = BodyFields.read(sameStart).conversationAnchor();
    assertThat(anchor).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(fields).isEqualTo(new BodyFields("llama-3", "s-1", "u-1", true, anchor));
  }

  @Test
  void shouldLetALaterFieldWinAndReadEscapedValues() {
    // Given: "model" twice, the later one escaped; "stream" true, then false
    byte[] body =
        "{\"model\":\"first\",\"stream\":true,\"model\":\"m\\u0041\",\"stream\":false}"
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields fields = BodyFields.read(body);

    // Then
    assertThat(fields).isEqualTo(new BodyFields("mA", null, null, false));
  }

  @Test
  void shouldGiveNothingForABodyThatIsNotAJsonObject() {
    // Given / When / Then
    assertThat(BodyFields.read("[1,2]".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(BodyFields.EMPTY);
    assertThat(BodyFields.read("not json".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(BodyFields.EMPTY);
    assertThat(BodyFields.read(new byte[0])).isEqualTo(BodyFields.EMPTY);
  }

  @Test
  void shouldGiveNothingForABodyCutInsideAString() {
    // Given: a truncated capture, cut inside the messages after "model"
    byte[] body =
        "{\"model\":\"m\",\"messages\":[{\"content\":\"cut her".getBytes(StandardCharsets.UTF_8);

    // When / Then: the parser fails at the cut, and what it read before is not kept
    assertThat(BodyFields.read(body)).isEqualTo(BodyFields.EMPTY);
  }

  @Test
  void shouldAnchorNothingInABodyWithoutAUserMessage() {
    // Given / When / Then: a system prompt alone, assistant text alone, no messages at all
    assertThat(anchor("{'model':'m','messages':[{'role':'system','content':'S'}]}")).isNull();
    assertThat(anchor("{'model':'m','messages':[{'role':'assistant','content':'A'}]}")).isNull();
    assertThat(anchor("{'model':'m','messages':[]}")).isNull();
    assertThat(anchor("{'model':'m','prompt':'Once'}")).isNull();
    assertThat(anchor("{'model':'m','input':['a','b']}")).isNull();
  }

  @Test
  void shouldAnchorNothingInABodyCutAfterItsFirstUserMessage() {
    // Given: the start is whole, the rest of the body is cut or broken
    byte[] cut = json("{'model':'m','messages':[{'role':'user','content':'Hi'},{'role':'assis");
    byte[] broken = json("{'model':'m','messages':[{'role':'user','content':'Hi'}] 'stream':true}");

    // When / Then: like any body that is not whole JSON, nothing at all is read from it
    assertThat(BodyFields.read(cut)).isEqualTo(BodyFields.EMPTY);
    assertThat(BodyFields.read(broken)).isEqualTo(BodyFields.EMPTY);
  }

  @Test
  void shouldAnchorTheModelAndTheFirstUserMessageOnly() {
    // Given
    String start = "{'role':'system','content':'S'},{'role':'user','content':'U'}";
    byte[] reference = anchor("{'model':'m','messages':[" + start + "]}");

    // When / Then: what follows the first user message is not part of it
    assertThat(reference).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(anchor("{'model':'m','messages':[" + start + ",{'role':'user','content':'V'}]}"))
        .isEqualTo(reference);
    // the model, a name and the first user message are; the system prompt before it is not
    assertThat(anchor("{'model':'n','messages':[" + start + "]}")).isNotEqualTo(reference);
    assertThat(anchor("{'model':'m','messages':[{'role':'user','content':'U'}]}"))
        .isEqualTo(reference);
    assertThat(
            anchor(
                "{'model':'m','messages':[{'role':'system','content':'S'},"
                    + "{'role':'user','name':'ann','content':'U'}]}"))
        .isNotEqualTo(reference);
    assertThat(
            anchor(
                "{'model':'m','messages':[{'role':'system','content':'S'},"
                    + "{'role':'user','content':'U '}]}"))
        .isNotEqualTo(reference);
    // neither the order of fields nor fields other than role, name and content
    assertThat(
            anchor(
                "{'messages':[{'content':'S','role':'system'},"
                    + "{'role':'user','content':'U','id':'msg_1'}],'model':'m'}"))
        .isEqualTo(reference);
  }

  @Test
  void shouldAnchorAContentPartByItsTypeTextAndImageButNotItsCacheControl() {
    // Given: the first user message as a string, as a text part, as a marked text part
    byte[] string = anchor("{'model':'m','messages':[{'role':'user','content':'Look'}]}");
    byte[] part =
        anchor(
            "{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':'Look'}]}]}");
    byte[] marked =
        anchor(
            "{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':'Look',"
                + "'cache_control':{'type':'ephemeral'}}]}]}");
    String image = "{'type':'image_url','image_url':{'url':'https://example.com/%s.png'%s}}";
    String withImage =
        "{'model':'m','messages':[{'role':'user','content':[{'type':'text','text':'Look'},"
            + image
            + "]}]}";

    // When / Then
    assertThat(part).isEqualTo(string);
    assertThat(marked).isEqualTo(string);
    assertThat(anchor(String.format(withImage, "a", ""))).isNotEqualTo(string);
    assertThat(anchor(String.format(withImage, "a", ",'detail':'low'")))
        .isEqualTo(anchor(String.format(withImage, "a", "")));
    assertThat(anchor(String.format(withImage, "b", "")))
        .isNotEqualTo(anchor(String.format(withImage, "a", "")));
  }

  @Test
  void shouldLeaveTheSystemPromptOutOfTheAnchorWhereverItStands() {
    // Given: a top-level system prompt (Anthropic) as a string, as marked text parts, after the
    // messages, another one, a system message, and none at all
    String messages = "'messages':[{'role':'user','content':'U'}]";
    byte[] none = anchor("{'model':'m'," + messages + "}");

    // When / Then: all anchor the first user message alone, which the system prompt does not touch
    assertThat(none).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(anchor("{'model':'m','system':'S'," + messages + "}")).isEqualTo(none);
    assertThat(
            anchor(
                "{'model':'m','system':[{'type':'text','text':'S','cache_control':{'type':'ephemeral'}}],"
                    + messages
                    + "}"))
        .isEqualTo(none);
    assertThat(anchor("{'model':'m'," + messages + ",'system':'T'}")).isEqualTo(none);
    assertThat(
            anchor(
                "{'model':'m','messages':[{'role':'system','content':'It is 15:01.'},"
                    + "{'role':'user','content':'U'}]}"))
        .isEqualTo(none);
    assertThat(anchor("{'model':'m','messages':[{'role':'user','content':'V'}]}"))
        .isNotEqualTo(none);
  }

  @Test
  void shouldAnchorAResponsesInputAsItsFirstUserMessage() {
    // Given: input as a string, as an item with a role after one without, with instructions
    byte[] string = anchor("{'model':'m','instructions':'I','input':'U'}");
    byte[] items =
        anchor(
            "{'model':'m','instructions':'I','input':[{'type':'reasoning','id':'rs_1'},"
                + "{'type':'message','role':'user','content':'U'},{'role':'assistant','content':'A'}]}");

    // When / Then
    assertThat(string).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(items).isEqualTo(string);
    assertThat(anchor("{'model':'m','instructions':'J','input':'U'}")).isEqualTo(string);
    assertThat(anchor("{'model':'m','input':'U'}")).isEqualTo(string);
    assertThat(anchor("{'model':'m','input':'V'}")).isNotEqualTo(string);
  }

  @Test
  void shouldAnchorNothingInABodyThatContinuesAConversationHeldByTheServer() {
    // Given / When / Then: its input is only the new turn
    assertThat(anchor("{'model':'m','previous_response_id':'resp_1','input':'U'}")).isNull();
    assertThat(anchor("{'model':'m','input':'U','conversation':{'id':'conv_1'}}")).isNull();
    assertThat(anchor("{'model':'m','input':'U','previous_response_id':null}"))
        .isEqualTo(anchor("{'model':'m','input':'U'}"))
        .hasSize(BodyFields.ANCHOR_BYTES);
  }

  @Test
  void shouldAnchorALoneSurrogateApartFromTheCharacterThatWouldReplaceIt() {
    // Given: lone surrogates, which JSON's escapes allow, one of them where the UTF-8 of the text
    // before it has filled the encoder's 4 KiB buffer but for two bytes
    String before = "é".repeat(2047);
    String lone = "{'model':'m','messages':[{'role':'user','content':'" + before + "\\ud800x'}]}";
    String replaced = "{'model':'m','messages':[{'role':'user','content':'" + before + "?x'}]}";
    String low = "{'model':'m','messages':[{'role':'user','content':'" + before + "\\udc00x'}]}";

    // When
    byte[] anchor = anchor(lone);

    // Then
    assertThat(anchor).hasSize(BodyFields.ANCHOR_BYTES).isEqualTo(anchor(lone));
    assertThat(anchor).isNotEqualTo(anchor(replaced)).isNotEqualTo(anchor(low));
  }

  @Test
  void shouldDecodeAFirstUserMessageLongerThanJacksonsDefaultLimit() {
    // Given: 21 million characters, past Jackson's default of 20 million
    String text = "a".repeat(21_000_000);

    // When
    BodyFields fields =
        BodyFields.read(
            json("{'model':'m','messages':[{'role':'user','content':'" + text + "'}]}"));

    // Then
    assertThat(fields.model()).isEqualTo("m");
    assertThat(fields.conversationAnchor()).hasSize(BodyFields.ANCHOR_BYTES);
  }

  @Test
  void shouldReadTheSameTopLevelFieldsWithoutTheAnchorWhenAskedForThemOnly() {
    // Given
    byte[] body =
        json(
            "{'model':'m','messages':[{'role':'user','content':'U'}],'user':'u','stream':true,"
                + "'session_id':'s'}");

    // When
    BodyFields all = BodyFields.read(body);
    BodyFields topLevel = BodyFields.readTopLevel(body);

    // Then
    assertThat(all.conversationAnchor()).hasSize(BodyFields.ANCHOR_BYTES);
    assertThat(topLevel).isEqualTo(new BodyFields("m", "s", "u", true, null));
    assertThat(BodyFields.readTopLevel(json("{'model':'m','messages':[{'role':'us")))
        .isEqualTo(BodyFields.EMPTY);
  }

  @Test
  void shouldNeverShowTheAnchorInToString() {
    // Given
    BodyFields fields =
        BodyFields.read(json("{'model':'m','messages':[{'role':'user','content':'U'}]}"));

    // When / Then
    assertThat(fields.toString())
        .isEqualTo(
            "BodyFields[model=m, sessionId=null, user=null, stream=false,"
                + " conversationAnchor=present]");
  }

  private static byte[] anchor(String singleQuoted) {
    return BodyFields.read(json(singleQuoted)).conversationAnchor();
  }

  /** JSON written with single quotes, for legibility; none of the tests' texts holds one. */
  private static byte[] json(String singleQuoted) {
    return singleQuoted.replace('\'', '"').getBytes(StandardCharsets.UTF_8);
  }
}
